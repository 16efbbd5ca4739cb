/**
 * Functions compiled from JavaScript source written at run time, one per Go struct, the way
 * gogo-protobuf's generated Marshal/Unmarshal and protobuf.js's codegen get their speed: a
 * struct's fields become straight-line code with constant indices, names and tags, which V8
 * compiles and inlines, rather than a closure per field called through an array (several times
 * slower on a Deployment, most of it in the calls).
 *
 * The source is made only from the API graph (generated from the pinned release), never from
 * a request: field names enter it through JSON.stringify, values through `ref`.
 */

/** Builds one function's body. */
export class FunctionSource {
  private readonly refs: unknown[] = [];
  private readonly lines: string[] = [];

  /** A value the code uses (a function, a constant): the name to write in the source. */
  ref(value: unknown): string {
    this.refs.push(value);
    return `$${this.refs.length - 1}`;
  }

  line(code: string): void {
    this.lines.push(code);
  }

  /** The function, its parameters named `params`. */
  compile<F>(params: string[]): F {
    const names = this.refs.map((_, i) => `$${i}`);
    const body = `'use strict';\nreturn function (${params.join(', ')}) {\n${this.lines.join('\n')}\n};`;
    return new Function(...names, body)(...this.refs) as F;
  }
}

/** A string as a JavaScript literal. */
export function literal(s: string): string {
  return JSON.stringify(s);
}

/**
 * A function compiled on its first call: types refer to themselves (JSONSchemaProps), so a
 * struct's code calls the others' through these, whose `fn` replaces itself when first run.
 */
export interface LateBound<F> {
  fn: F;
}

export function lateBound<F extends (...args: never[]) => unknown>(make: () => F): LateBound<F> {
  const holder = {} as LateBound<F>;
  holder.fn = ((...args: Parameters<F>) => {
    holder.fn = make();
    return holder.fn(...args);
  }) as F;
  return holder;
}

/** One function per key (a struct), compiled on its first call by `make`; the same one after. */
export function compiledPer<K extends object, F extends (...args: never[]) => unknown>(
  make: (key: K) => F,
): (key: K) => LateBound<F> {
  const made = new WeakMap<K, LateBound<F>>();
  return (key) => {
    let fn = made.get(key);
    if (!fn) {
      fn = lateBound(() => make(key));
      made.set(key, fn);
    }
    return fn;
  };
}
