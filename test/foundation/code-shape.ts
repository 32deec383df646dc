// The measures behind test/foundation/code-shape.test.ts, on the TypeScript syntax tree (no type
// checking: each file is parsed on its own, so the whole of src/ takes well under a second).
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import ts from 'typescript';

/** Longest a function may be, in lines from its first token to its closing brace. */
export const MAX_LINES = 100;

/** Longest a function nested in a declarative table may be (a lazy `() => import(...)`, a parser). */
const TABLE_CALLBACK_LINES = 5;

export interface FunctionShape {
  /** Enclosing functions and this one, joined with `/`: `onixParser/on('closetag')`. */
  name: string;
  /** Line of its first token (1-based). */
  line: number;
  lines: number;
  /** A declarative table (see isTable): exempt from MAX_LINES. */
  table: boolean;
}

export interface AnyShape {
  line: number;
  /** `// any: <reason>` on the line of the `any` or on the line above. */
  reasoned: boolean;
}

type FunctionNode =
  | ts.FunctionDeclaration
  | ts.MethodDeclaration
  | ts.ConstructorDeclaration
  | ts.GetAccessorDeclaration
  | ts.SetAccessorDeclaration
  | ts.ArrowFunction
  | ts.FunctionExpression;

function isFunction(node: ts.Node): node is FunctionNode {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node) ||
    ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node)
  );
}

function parse(fileName: string, text: string): ts.SourceFile {
  return ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function span(node: ts.Node, sf: ts.SourceFile): { line: number; lines: number } {
  const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
  const last = sf.getLineAndCharacterOfPosition(node.end).line;
  return { line: first + 1, lines: last - first + 1 };
}

function propertyName(name: ts.PropertyName | ts.BindingName | undefined, sf: ts.SourceFile): string {
  if (!name) return 'anonymous';
  if (ts.isIdentifier(name) || ts.isPrivateIdentifier(name) || ts.isStringLiteral(name) || ts.isNumericLiteral(name))
    return name.text;
  return name.getText(sf);
}

function className(node: ts.Node): string | undefined {
  const parent = node.parent;
  if (parent && (ts.isClassDeclaration(parent) || ts.isClassExpression(parent))) return parent.name?.text ?? 'class';
  return undefined;
}

/** What a reader would call the function: its declared name, its variable or key, or the call it is passed to. */
function ownName(fn: FunctionNode, sf: ts.SourceFile): string {
  if (ts.isFunctionDeclaration(fn)) return fn.name?.text ?? 'default';
  if (ts.isConstructorDeclaration(fn)) return `${className(fn) ?? 'class'}.constructor`;
  if (ts.isMethodDeclaration(fn) || ts.isGetAccessorDeclaration(fn) || ts.isSetAccessorDeclaration(fn)) {
    const owner = className(fn);
    const own = propertyName(fn.name, sf);
    return owner ? `${owner}.${own}` : own;
  }
  if (ts.isFunctionExpression(fn) && fn.name) return fn.name.text;
  const parent = fn.parent;
  if (ts.isVariableDeclaration(parent)) return propertyName(parent.name, sf);
  if (ts.isPropertyAssignment(parent)) return propertyName(parent.name, sf);
  if (ts.isPropertyDeclaration(parent)) return `${className(parent) ?? 'class'}.${propertyName(parent.name, sf)}`;
  if (ts.isBinaryExpression(parent)) return parent.left.getText(sf);
  if (ts.isCallExpression(parent) || ts.isNewExpression(parent)) {
    const callee = parent.expression;
    const called = ts.isPropertyAccessExpression(callee)
      ? callee.name.text
      : ts.isIdentifier(callee)
        ? callee.text
        : 'call';
    const first = parent.arguments?.[0];
    return first && first !== fn && ts.isStringLiteralLike(first) ? `${called}('${first.text}')` : `${called}()`;
  }
  return 'anonymous';
}

/** Control flow that makes a body more than a table: branches, loops, handlers, waits, assignments. */
function isControl(node: ts.Node): boolean {
  if (
    ts.isIfStatement(node) ||
    ts.isIterationStatement(node, false) ||
    ts.isSwitchStatement(node) ||
    ts.isTryStatement(node) ||
    ts.isThrowStatement(node) ||
    ts.isConditionalExpression(node) ||
    ts.isAwaitExpression(node) ||
    ts.isYieldExpression(node) ||
    (ts.isPrefixUnaryExpression(node) &&
      (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) ||
    ts.isPostfixUnaryExpression(node)
  ) {
    return true;
  }
  if (ts.isBinaryExpression(node)) {
    const op = node.operatorToken.kind;
    return (
      op === ts.SyntaxKind.AmpersandAmpersandToken ||
      op === ts.SyntaxKind.BarBarToken ||
      op === ts.SyntaxKind.QuestionQuestionToken ||
      (op >= ts.SyntaxKind.FirstAssignment && op <= ts.SyntaxKind.LastAssignment)
    );
  }
  return false;
}

/**
 * A declarative table, exempt from MAX_LINES: a function whose body only declares things.
 * - Its body is an expression (an arrow returning an object or array literal, a call chain) or a
 *   block whose statements are each a `const` with an initialiser, a call (`program.command(...)
 *   .option(...)`, `examples(action(...), [...])`: a registration), or a `return` of a value.
 * - Nowhere in it (outside the functions it passes along) is there control flow: no if, loop,
 *   switch, try, throw, `?:`, `&&`/`||`/`??`, await, yield, assignment or `++`.
 * - Every function written inside it is at most TABLE_CALLBACK_LINES lines (`() => import('./x.js')`,
 *   a value parser): a longer callback is logic, and the whole is not a table.
 */
function isTable(fn: FunctionNode, sf: ts.SourceFile): boolean {
  const body = fn.body;
  if (!body) return false;
  if (ts.isBlock(body)) {
    for (const st of body.statements) {
      const declares =
        (ts.isVariableStatement(st) &&
          (st.declarationList.flags & ts.NodeFlags.Const) !== 0 &&
          st.declarationList.declarations.every((d) => d.initializer)) ||
        (ts.isExpressionStatement(st) && ts.isCallExpression(st.expression)) ||
        (ts.isReturnStatement(st) && st.expression !== undefined);
      if (!declares) return false;
    }
  }
  let declarative = true;
  const visit = (node: ts.Node): void => {
    if (!declarative) return;
    if (isFunction(node)) {
      if (span(node, sf).lines > TABLE_CALLBACK_LINES) declarative = false;
      return;
    }
    if (isControl(node)) {
      declarative = false;
      return;
    }
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(body, visit);
  return declarative;
}

/** Every function in a source text, with its length and whether it is a table. */
export function functionsIn(fileName: string, text: string): FunctionShape[] {
  const sf = parse(fileName, text);
  const out: FunctionShape[] = [];
  const seen = new Map<string, number>();
  const visit = (node: ts.Node, outer: string[]): void => {
    if (isFunction(node) && node.body) {
      const path = [...outer, ownName(node, sf)];
      let name = path.join('/');
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      if (n > 1) name += `#${n}`;
      out.push({ name, ...span(node, sf), table: isTable(node, sf) });
      ts.forEachChild(node, (child) => visit(child, path));
      return;
    }
    ts.forEachChild(node, (child) => visit(child, outer));
  };
  visit(sf, []);
  return out;
}

const REASON = /\/\/\s*any:\s*\S/;

/** Every `any` type in a source text, and whether a `// any: <reason>` comment explains it. */
export function anysIn(fileName: string, text: string): AnyShape[] {
  const sf = parse(fileName, text);
  const lines = text.split('\n');
  const out: AnyShape[] = [];
  const visit = (node: ts.Node): void => {
    if (node.kind === ts.SyntaxKind.AnyKeyword) {
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      out.push({ line: line + 1, reasoned: REASON.test(lines[line]) || (line > 0 && REASON.test(lines[line - 1])) });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** The TypeScript sources under `root` (tests excluded), as paths relative to `base` with `/`. */
export function sourcesUnder(root: string, base: string): { file: string; text: string }[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
      e.isDirectory()
        ? walk(join(dir, e.name))
        : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts')
          ? [join(dir, e.name)]
          : [],
    );
  return walk(root)
    .sort()
    .map((p) => ({ file: relative(base, p).split(sep).join('/'), text: readFileSync(p, 'utf8') }));
}
