// 代码 04: LLMSelector in the toy world of compound AI systems (§4.2–§4.6, exercises 6–7). One file a part:
// the case study (case.ts), the monotone world (monotone.ts), random pools (pools.ts), the noisy
// diagnoser (diagnoser.ts), broken monotonicity and cost (structure.ts).
import { llmSelectorCase } from "./case";
import { monotoneCheck } from "./monotone";
import { llmSelectorPools } from "./pools";
import { llmSelectorNoisyDiagnoser } from "./diagnoser";
import { llmSelectorCost, llmSelectorViolations } from "./structure";

export { caseStudyPaths } from "./case";
export { llmSelectorCase, monotoneCheck, llmSelectorPools, llmSelectorNoisyDiagnoser, llmSelectorViolations, llmSelectorCost };

export const llmSelectorDemos = [llmSelectorCase, llmSelectorPools, llmSelectorNoisyDiagnoser, llmSelectorViolations, llmSelectorCost, monotoneCheck];
