// §0 (notebook 00): the paper GPU — the step model's prefill (00.1) and decode (00.2).
import { stepModelDecode, stepModelPrefill } from "./step-model";

export const overviewDemos = [stepModelPrefill, stepModelDecode];
