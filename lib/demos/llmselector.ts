// 代码 04: LLMSelector in the toy world of compound AI systems (§4.2–§4.6, exercises 6–7). One file a part:
// the case study and the monotone world (llmselector-case.ts), random pools and the noisy diagnoser
// (llmselector-pools.ts), broken monotonicity and cost (llmselector-structure.ts).
import { llmSelectorCase, monotoneCheck } from "./llmselector-case";
import { llmSelectorNoisyDiagnoser, llmSelectorPools } from "./llmselector-pools";
import { llmSelectorCost, llmSelectorViolations } from "./llmselector-structure";

export { caseStudyPaths } from "./llmselector-case";
export { llmSelectorCase, monotoneCheck, llmSelectorPools, llmSelectorNoisyDiagnoser, llmSelectorViolations, llmSelectorCost };

export const llmSelectorDemos = [llmSelectorCase, llmSelectorPools, llmSelectorNoisyDiagnoser, llmSelectorViolations, llmSelectorCost, monotoneCheck];
