// 代码 04: LLMSelector in the toy world of compound AI systems (§4.2–§4.6, exercises 6–7). One file a part:
// the case study (llmselector-case.ts), the monotone world (llmselector-monotone.ts), random pools (llmselector-pools.ts), the noisy
// diagnoser (llmselector-diagnoser.ts), broken monotonicity and cost (llmselector-structure.ts).
import { llmSelectorCase } from "./llmselector-case";
import { monotoneCheck } from "./llmselector-monotone";
import { llmSelectorPools } from "./llmselector-pools";
import { llmSelectorNoisyDiagnoser } from "./llmselector-diagnoser";
import { llmSelectorCost, llmSelectorViolations } from "./llmselector-structure";

export { caseStudyPaths } from "./llmselector-case";
export { llmSelectorCase, monotoneCheck, llmSelectorPools, llmSelectorNoisyDiagnoser, llmSelectorViolations, llmSelectorCost };

export const llmSelectorDemos = [llmSelectorCase, llmSelectorPools, llmSelectorNoisyDiagnoser, llmSelectorViolations, llmSelectorCost, monotoneCheck];
