/** `${NAME}` placeholders in header values, replaced from the environment. */
const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

type ResolvedHeaders =
  | { ok: true; headers: Record<string, string> }
  | { ok: false; reason: string };

/**
 * Substitutes `${ENV}` in every header value. A placeholder naming an unset (or empty) variable
 * is a configuration failure rather than an empty header, so the killswitch restricts instead of
 * sending an anonymous request that the server would likely reject anyway.
 */
export function resolveHeaders(
  templates: Readonly<Record<string, string>>,
  env: Readonly<Record<string, string | undefined>>,
): ResolvedHeaders {
  const headers: Record<string, string> = {};
  for (const [name, template] of Object.entries(templates)) {
    let missing: string | undefined;
    const value = template.replace(PLACEHOLDER, (_match, variable: string) => {
      const found = env[variable];
      if (found === undefined || found === "") missing ??= variable;
      return found ?? "";
    });
    if (missing !== undefined) {
      return {
        ok: false,
        reason: `header "${name}" needs environment variable ${missing}, which is not set`,
      };
    }
    headers[name.toLowerCase()] = value;
  }
  return { ok: true, headers };
}
