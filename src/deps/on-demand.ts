/**
 * Dependencies that only some features need, loaded on first use so that importing the package
 * does not pay for them: the YAML and TOML parsers (policy files, scenarios), RE2JS (regex
 * matchers) and picomatch (globs). Loading is synchronous, so `parsePolicy` and a policy's `decide`
 * stay synchronous.
 *
 * Each load is written as a literal `require("<name>")`: a bundler (esbuild, webpack, Rollup's
 * CommonJS plugin) sees it and includes the package, evaluated only when first called. Without a
 * bundler, an ES module has no `require`, and `createRequire` loads the same package. The module
 * is cached here after the first call.
 */
import { createRequire } from "node:module";

type Yaml = typeof import("yaml");
type Toml = typeof import("smol-toml");
type Re2js = typeof import("re2js");
type Picomatch = typeof import("picomatch");

const hasRequire = (): boolean => typeof require === "function";
const nodeRequire = (name: string): unknown => createRequire(import.meta.url)(name);

let yaml: Yaml | undefined;
let toml: Toml | undefined;
let re2js: Re2js | undefined;
let picomatch: Picomatch | undefined;

/** The `yaml` package. */
export function yamlLibrary(): Yaml {
  return (yaml ??= (hasRequire() ? require("yaml") : nodeRequire("yaml")) as Yaml);
}

/** The `smol-toml` package. */
export function tomlLibrary(): Toml {
  return (toml ??= (hasRequire() ? require("smol-toml") : nodeRequire("smol-toml")) as Toml);
}

/** The `re2js` package. */
export function re2jsLibrary(): Re2js {
  return (re2js ??= (hasRequire() ? require("re2js") : nodeRequire("re2js")) as Re2js);
}

/** The `picomatch` package. */
export function picomatchLibrary(): Picomatch {
  return (picomatch ??= (hasRequire() ? require("picomatch") : nodeRequire("picomatch")) as Picomatch);
}
