// `--query EXPR`: a JMESPath expression over exactly what --json would print (the AWS CLI
// convention). Loaded only when --query is given: the library stays off the start-up path.
import { compile, TreeInterpreter } from '@jmespath-community/jmespath';
import { usageError } from '../errors.js';

type Ast = ReturnType<typeof compile>;
const compiled = new Map<string, Ast>();

/** Parse the expression; a bad one is a usage error (exit 2) naming the problem. */
export function compileQuery(expression: string): Ast {
  let ast = compiled.get(expression);
  if (ast) return ast;
  try {
    ast = compile(expression);
  } catch (e: any) {
    throw usageError(`--query ${JSON.stringify(expression)}: not a valid JMESPath expression (${String(e?.message ?? e).replace(/\s+/g, ' ').trim()}). See https://jmespath.org/tutorial.html.`);
  }
  compiled.set(expression, ast);
  return ast;
}

export function runQuery(expression: string, doc: unknown): unknown {
  const ast = compileQuery(expression);
  try {
    return TreeInterpreter.search(ast, doc as any);
  } catch (e: any) {
    // Type errors of functions (e.g. length(`1`)) surface only when the expression runs.
    throw usageError(`--query ${JSON.stringify(expression)}: ${String(e?.message ?? e).replace(/\s+/g, ' ').trim().replace(/\.+$/, '')}.`);
  }
}
