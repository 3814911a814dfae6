// How deep JSON may nest, wherever it comes from: a request body, or a JSON document inside an
// OpenTelemetry attribute.
/**
 * How deep a request's JSON may nest arrays and objects. Far beyond any trace's shape (a chat's
 * messages nest about five deep, a tool's JSON schema a dozen), and far below the depth at which
 * writing the value back (a response, an error's `input`) would exhaust the stack: a body nested a
 * few thousand deep is a few kilobytes.
 */
export const MAX_JSON_DEPTH = 100;

/** Arrays and objects, not bytes (an upload, a protobuf body), which are a leaf. */
const isContainer = (v: unknown): v is object => typeof v === 'object' && v !== null && !ArrayBuffer.isView(v);

/** Whether `v`, itself at `depth`, holds a container at `max` or deeper. Recurses at most `max` deep, whatever the input. */
const reaches = (v: object, depth: number, max: number): boolean => {
  if (depth >= max) return true;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const child: unknown = v[i];
      if (isContainer(child) && reaches(child, depth + 1, max)) return true;
    }
    return false;
  }
  for (const key in v) {
    const child: unknown = (v as Record<string, unknown>)[key];
    if (isContainer(child) && reaches(child, depth + 1, max)) return true;
  }
  return false;
};

/**
 * Whether `value` nests arrays and objects deeper than `max`. On every request body, so a plain walk
 * (no copies of keys or values); its recursion stops at `max`, so the input cannot choose its depth.
 */
export const nestsDeeperThan = (value: unknown, max: number): boolean => isContainer(value) && reaches(value, 0, max);

