// §2 (代码 02, notebook 02): the cache–balance dilemma, 02.1–02.10. cache-vs-balance.ts holds 02.1 and lists the
// rest; each family of demos has a file of its own beside it.
import { cacheVsBalanceDemos, section2MoreDemos } from "./cache-vs-balance";

export { SECTION2_WORKLOADS, SECTION2_MODEL, SECTION2_GPU, LOAD_ONLY_POLICIES } from "./cache-vs-balance";

export const cacheBalanceDemos = [...cacheVsBalanceDemos, ...section2MoreDemos];
