import picomatch from "picomatch";

/**
 * `picomatch(glob, options)` as a plain test of one string, without the result object picomatch's
 * matcher builds on every call. For a string glob and options with none of picomatch's hooks or
 * path formatting (`windows`, `format`, `capture`, `matchBase`, `basename`, `ignore`, `onResult`,
 * `onMatch`, `onIgnore`), picomatch's answer for a string input is: false for "", true when the input
 * is the glob itself, else whether its regex (`picomatch.makeRe`, never global or sticky) matches.
 * test/policy-glob.test.ts compares the two on generated globs and inputs.
 */
export function compileGlob(glob: string, options: { nocase: boolean; dot: boolean }): (text: string) => boolean {
  picomatch(glob, options); // the same errors as before for a glob picomatch refuses
  const regex = picomatch.makeRe(glob, options);
  return (text) => text !== "" && (text === glob || regex.test(text));
}
