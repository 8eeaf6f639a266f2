// One small option parser for the command-line scripts (handouts, release, grade): `--name value`, `--name=value`,
// flags, positional arguments. An unknown option, a missing value or a value outside its choices prints the usage
// line and exits 2 (a typo must not silently change what is written).

/**
 * @param {string[]} argv  process.argv.slice(2)
 * @param {{ usage: string, options: Record<string, { value?: boolean, choices?: string[], integer?: { min: number }, number?: { above: number } }> }} spec
 * @returns {{ values: Record<string, string | number | boolean>, positional: string[] }}
 */
export function parseOptions(argv, spec) {
  const values = {};
  const positional = [];
  const refuse = (why) => {
    console.error(`${why}\nusage: ${spec.usage}`);
    process.exit(2);
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === "-h" || arg === "--help") {
      console.log(`usage: ${spec.usage}`);
      process.exit(0);
    }
    if (arg === "--") {
      positional.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positional.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    const name = (eq >= 0 ? arg.slice(0, eq) : arg).replace(/^--?/, "");
    const option = spec.options[name];
    if (!option) refuse(`unknown option ${eq >= 0 ? arg.slice(0, eq) : arg}`);
    if (!option.value) {
      if (eq >= 0) refuse(`option --${name} takes no value`);
      values[name] = true;
      continue;
    }
    let value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === "" || (eq < 0 && value.startsWith("--"))) refuse(`option --${name} needs a value`);
    if (option.choices && !option.choices.includes(value)) refuse(`option --${name} must be one of ${option.choices.join(" | ")}, got ${JSON.stringify(value)}`);
    if (option.integer) {
      const n = Number(value);
      if (!Number.isInteger(n) || n < option.integer.min) refuse(`option --${name} must be an integer >= ${option.integer.min}, got ${JSON.stringify(value)}`);
      value = n;
    } else if (option.number) {
      const n = Number(value);
      if (!Number.isFinite(n) || n <= option.number.above) refuse(`option --${name} must be a number > ${option.number.above}, got ${JSON.stringify(value)}`);
      value = n;
    }
    values[name] = value;
  }
  return { values, positional };
}
