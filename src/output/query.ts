// `--query EXPR`: a JMESPath expression over exactly what --json would print (the AWS CLI
// convention). Loaded only when --query is given: the library stays off the start-up path.
import { compile, TreeInterpreter, type JSONValue } from '@jmespath-community/jmespath';
import { messageOf, usageError } from '../errors.js';

type Ast = ReturnType<typeof compile>;
const compiled = new Map<string, Ast>();

/**
 * The work one --query may do (issue 22): each node the interpreter visits counts one, and
 * each array or string it makes counts its length, so a self-multiplying expression stops
 * well within a second (a signal is handled once the evaluation returns), and so does a result
 * too large to print. Past either bound the command exits 2 naming the expression.
 */
export const QUERY_MAX_STEPS = 1_000_000;
export const QUERY_MAX_RESULT = 2_000_000;
/** And at most this long on the clock, whatever the machine's load (a signal waits for it). */
export const QUERY_MAX_MS = 750;

class QueryTooBig extends Error {
  constructor(readonly why: 'steps' | 'time') {
    super(why);
  }
}
let budget = Infinity;
let deadline = Infinity;
let tick = 0;

// The interpreter's one entry for every node (functions and scopes call it too). Field lookups
// are own properties only: `constructor` or `toString` are no fields of a record.
// The library does not export its node types: a node is read here only for its type and name.
type Node = { type?: string; name?: string } | null | undefined;
const proto = Object.getPrototypeOf(TreeInterpreter) as { visit(node: Node, value: unknown): unknown };
// eslint-disable-next-line @typescript-eslint/unbound-method -- called with .call(this) in the wrapper below
const visit = proto.visit;
proto.visit = function (this: unknown, node: Node, value: unknown): unknown {
  if (--budget < 0) throw new QueryTooBig('steps');
  if ((++tick & 255) === 0 && performance.now() > deadline) throw new QueryTooBig('time');
  if (
    node?.type === 'Field' &&
    value !== null &&
    typeof value === 'object' &&
    !Array.isArray(value) &&
    !Object.prototype.hasOwnProperty.call(value, node.name ?? '')
  ) {
    return null;
  }
  const out = visit.call(this, node, value);
  if (Array.isArray(out)) budget -= out.length;
  else if (typeof out === 'string') budget -= out.length >> 4;
  if (budget < 0) throw new QueryTooBig('steps');
  return out;
};

/** Values in a result (each array element and object member counts), up to `limit`. */
function sizeOf(v: unknown, limit: number): number {
  let n = 0;
  const stack: unknown[] = [v];
  while (stack.length) {
    const x = stack.pop();
    if (++n > limit) return n;
    if (Array.isArray(x)) for (let i = 0; i < x.length; i++) stack.push(x[i]);
    else if (x !== null && typeof x === 'object') for (const k in x) stack.push((x as Record<string, unknown>)[k]);
  }
  return n;
}

function shown(expression: string): string {
  return JSON.stringify(expression.length > 200 ? expression.slice(0, 200) + '…' : expression);
}

/** Parse the expression; a bad one is a usage error (exit 2) naming the problem. */
export function compileQuery(expression: string): Ast {
  let ast = compiled.get(expression);
  if (ast) return ast;
  try {
    ast = compile(expression);
  } catch (e) {
    throw usageError(
      `--query ${shown(expression)}: not a valid JMESPath expression (${messageOf(e).replace(/\s+/g, ' ').trim()}). See https://jmespath.org/tutorial.html.`,
    );
  }
  compiled.set(expression, ast);
  return ast;
}

export function runQuery(
  expression: string,
  doc: unknown,
  limits = { steps: QUERY_MAX_STEPS, result: QUERY_MAX_RESULT, ms: QUERY_MAX_MS },
): unknown {
  const ast = compileQuery(expression);
  let result: unknown;
  budget = limits.steps;
  deadline = performance.now() + limits.ms;
  try {
    result = TreeInterpreter.search(ast, doc as JSONValue);
  } catch (e) {
    if (e instanceof QueryTooBig) {
      const bound = e.why === 'steps' ? `${limits.steps.toLocaleString('en-US')} steps` : `${limits.ms} ms`;
      throw usageError(
        `--query ${shown(expression)}: stopped after ${bound}, the most one query may take. Select less (e.g. a field of each row rather than whole rows).`,
      );
    }
    if (e instanceof RangeError) throw usageError(`--query ${shown(expression)}: too deeply nested to evaluate.`);
    // Type errors of functions (e.g. length(`1`)) surface only when the expression runs.
    throw usageError(
      `--query ${shown(expression)}: ${messageOf(e).replace(/\s+/g, ' ').trim().replace(/\.+$/, '').slice(0, 300)}.`,
    );
  } finally {
    budget = Infinity;
    deadline = Infinity;
  }
  if (sizeOf(result, limits.result) > limits.result) {
    throw usageError(
      `--query ${shown(expression)}: the result has more than ${limits.result.toLocaleString('en-US')} values, the most one query may print.`,
    );
  }
  return result;
}
