// A route's JSON answer, encoded once per frozen result object. The use cases freeze what they keep in
// memory and hand back every time, such as settled pages of scorer versions: its body is then
// presented, serialised and encoded once, not on every request. Any other result is presented afresh
// and costs what Koa's own JSON serialisation would (and leaves nothing behind in the memo).
import type { Route } from './route';

export type PresentedBody = { readonly json: Buffer } | { readonly other: unknown };

export class PresentedBodies {
  private readonly byRoute = new WeakMap<Route, WeakMap<object, Buffer>>();

  /**
   * The encoded JSON of `r.present(result)`, or (`other`) what `present` returned when that is not
   * an object or array (left to Koa as it is). Relies on presenters being pure functions of the result.
   */
  of(r: Route, result: unknown): PresentedBody {
    const memo = typeof result === 'object' && result !== null && Object.isFrozen(result) ? this.memoOf(r) : undefined;
    const known = memo?.get(result as object);
    if (known !== undefined) return { json: known };
    const presented = r.present(result);
    if (typeof presented !== 'object' || presented === null) return { other: presented };
    const json = Buffer.from(JSON.stringify(presented), 'utf8');
    memo?.set(result as object, json);
    return { json };
  }

  private memoOf(r: Route): WeakMap<object, Buffer> {
    let memo = this.byRoute.get(r);
    if (memo === undefined) this.byRoute.set(r, (memo = new WeakMap()));
    return memo;
  }
}
