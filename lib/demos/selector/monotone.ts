// 代码 04 演示 6 (our addition, §4.2): a world where the paper's monotonicity holds — choosing the best model per
// module is optimal, and LLMSelector gets there within L rounds from every start (Theorem 4.1).
import { checkInteger } from "../../core/errors";
import { displayName } from "../../core/glossary";
import { rng } from "../../core/rng";
import type { Row } from "../../core/table";
import { Evaluator } from "../../selector/evaluate";
import { exhaustive, llmSelector } from "../../selector/optimizers";
import { getSystem, SYSTEM_NAMES } from "../../selector/systems";
import { buildWorld, SKILLS, SelectorModel } from "../../selector/world";
import { needParam } from "../claims";
import { SEED_DOC, TEST_DOC, TRAIN_DOC } from "./common";
import { defineDemo } from "../registry";

/** A world where both monotonicity assumptions hold: no per-question luck (noiseScale 0), so a model succeeds at a
 * skill exactly on the questions easier than its ability, and a stronger model's successes contain a weaker one's. */
function monotoneWorld(seed: number | string, index: number, models: number, train: number, test: number) {
  const r = rng(`${String(seed)}/monotone/${index}`);
  const pool: SelectorModel[] = Array.from({ length: models }, (_, i) => {
    const expertise: Record<string, number> = {};
    for (const s of SKILLS) expertise[s] = 2 * r.normal();
    return { name: String.fromCharCode(65 + i), general: 0, expertise, consistency: 0.5 };
  });
  return buildWorld({ models: pool, train, test, seed: `${String(seed)}/monotone/${index}`, difficultySpread: 1, noiseScale: 0 });
}

export const monotoneCheck = defineDemo({
  id: "04.6",
  section: "§4.2",
  title: "单调性成立时：每个模块各选最好的模型就是最优，逐模块优化 L 轮内到达",
  // Size: 5 worlds of 5 models: within-l-rounds is checked from every starting assignment of each.
  defaults: { seed: 1, worlds: 5, models: 5, system: "selfRefine", train: 200, test: 200 },
  describe: {
    seed: SEED_DOC,
    worlds: { meaning: "随机生成几个单调的世界（每个世界的模型专长不同）", range: "1–20 的整数" },
    models: { meaning: "每个世界的候选模型数 K", range: "2–6 的整数" },
    system: { meaning: "复合系统", range: `${SYSTEM_NAMES.join("、")} 之一` },
    train: TRAIN_DOC,
    test: TEST_DOC,
  },
  run(p) {
    const worlds = checkInteger("worlds", p.worlds, { min: 1, max: 20 });
    const models = checkInteger("models", p.models, { min: 2, max: 6 });
    const system = getSystem(p.system);
    const rows: Row[] = [];
    for (let w = 0; w < worlds; w++) {
      const world = monotoneWorld(p.seed, w, models, checkInteger("train", p.train, { min: 1 }), checkInteger("test", p.test, { min: 1 }));
      const ev = new Evaluator(world, system);
      const L = ev.moduleCount;
      // per module: the model with the highest ability at that module's skill
      const perModule = system.modules.map((m) => {
        let k = 0;
        world.models.forEach((x, i) => {
          if ((x.expertise[m.skill] ?? 0) > (world.models[k].expertise[m.skill] ?? 0)) k = i;
        });
        return k;
      });
      const opt = exhaustive(ev);
      const total = Math.pow(models, L);
      let reached = 0;
      let rounds = 0;
      for (let i = 0; i < total; i++) {
        const start: number[] = [];
        for (let j = L - 1, x = i; j >= 0; j--, x = Math.floor(x / models)) start[j] = x % models;
        const r = llmSelector(ev, { start, q: 1 });
        if (ev.accuracy(r.path[Math.min(L, r.path.length - 1)]) === opt.trainAcc) reached++;
        rounds += r.rounds;
      }
      rows.push({
        world: w + 1,
        perModuleBest: ev.label(perModule),
        perModuleTrain: ev.accuracy(perModule, "train"),
        optimum: opt.label,
        optimumTrain: opt.trainAcc,
        starts: total,
        reachedWithinL: reached,
        rounds: rounds / total,
      });
    }
    return {
      title: `单调性成立的世界（${displayName(p.system)}，${models} 个模型，${worlds} 个世界）：逐模块最好 = 最优？`,
      columns: [
        { key: "world", label: "世界", format: "int" },
        { key: "perModuleBest", label: "每个模块各选最好的模型", format: "text" },
        { key: "perModuleTrain", label: "它的训练准确率", format: "fixed3" },
        { key: "optimum", label: "穷举的最优分配", format: "text" },
        { key: "optimumTrain", label: "最优的训练准确率", format: "fixed3" },
        { key: "starts", label: "初始分配数", format: "int" },
        { key: "reachedWithinL", label: "L 轮内到达最优准确率的起点数", format: "int" },
        { key: "rounds", label: "平均轮数（含确认收敛）", format: "fixed1" },
      ],
      rows,
      notes: [
        "这个世界里没有逐题的运气（noiseScale = 0）：模型恰好在比它的能力容易的题上成功，强模型答对的题总包含弱模型答对的题，两条单调性自动成立。LLMSelector 用全对的诊断器（q = 1），从每一个初始分配出发。",
      ],
    };
  },
  claims: [
    {
      id: "per-module-best-optimal",
      says: "两条单调性都成立时，每个模块各选该技能最好的模型，就是全局最优",
      lecture: "论文定理 4.1",
      judge: (t) => {
        needParam(t.rows.length > 0, "没有世界");
        const ok = t.rows.filter((r) => Number(r.perModuleTrain) === Number(r.optimumTrain)).length;
        return { holds: ok === t.rows.length, ours: `${ok} / ${t.rows.length} 个世界里逐模块最好的分配达到最优训练准确率` };
      },
    },
    {
      id: "within-l-rounds",
      says: "从任何一个初始分配出发，逐模块优化在 L 轮之内到达最优",
      lecture: "L 轮就能收敛（定理 4.1）",
      judge: (t) => {
        needParam(t.rows.length > 0, "没有世界");
        const reached = t.rows.reduce((s, r) => s + Number(r.reachedWithinL), 0);
        const starts = t.rows.reduce((s, r) => s + Number(r.starts), 0);
        return { holds: reached === starts, ours: `${reached} / ${starts} 次运行在 L 轮内到达` };
      },
    },
  ],
});

