#!/usr/bin/env node
/**
 * Fails when a dialect source builds SQL text from a value. Every value must reach the server as
 * a bound parameter; SQL text may only be made of fixed text, quoted identifiers, placeholders
 * and fragments built the same way.
 *
 * It reads `packages/dialect-*\/src/**\/*.ts` and the statement builder (`packages/sql/src`) with the TypeScript compiler (types included), finds
 * the SQL it builds (a template literal or a `+` chain whose fixed text holds SQL keywords, and
 * every `sql` property or variable), and follows each interpolated expression back to where it
 * comes from. An expression passes when it is:
 *
 * - fixed text, or of a type that cannot carry text: a number, bigint, boolean, or a string
 *   literal type (a choice among fixed fragments);
 * - a call of an SQL helper ({@link HELPERS}: identifier quoting, placeholders, parameter lists);
 * - a fragment's `.sql`, or a call of a function of the dialect sources whose every return passes;
 * - a variable, class field or parameter whose every assignment, push, or argument at every call
 *   site passes (for a callback's parameter, the elements of the array it is called over);
 * - a lookup in a constant table whose values pass; a `join` of an array whose elements pass;
 * - a condition, `+`, `??` or `||` of parts that pass.
 *
 * Anything else (a property of a message, a description's field, `String(x)`, `JSON.stringify`)
 * is reported with its file, line and why. In the MySQL dialect, SQL text holding `"` is reported
 * too: a string literal by default, an identifier under `ANSI_QUOTES` (identifiers take backticks). Run `node scripts/check-sql.mjs` (exit code 1 on a
 * finding); the vitest test `packages/core/test/check-sql.test.ts` runs it in CI.
 */
import { readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** Calls whose result is SQL by construction: quoted identifiers, placeholders, bound values. */
export const HELPERS = new Set([
  // identifier quoting (each dialect's sql.ts)
  'quoteIdent',
  'quoteTable',
  'ident',
  'tableName',
  'qualified',
  'ansiIdent',
  'savepointName',
  // a string constant that reads the same under every server setting (trigger arguments)
  'escapeString',
  // placeholders: `?, ?`, and the parameter builders' methods, which bind the value and answer `$n`
  'placeholders',
  'add',
  'bind',
  'list',
  'time',
]);

/** Fixed text that marks a template or `+` chain as SQL. */
const SQL_WORDS =
  /\b(SELECT|INSERT|UPDATE|DELETE|WHERE|VALUES|CREATE|DROP|ALTER|FROM|JOIN|ORDER BY|GROUP BY|LIMIT|RETURNING|SET|AND|OR|NOT|IN|IS|NULL|ON|AS|CASE|WHEN|THEN|ELSE|END|EXISTS|UNION|OUTPUT|TOP|COMMIT|ROLLBACK|SAVEPOINT|EXECUTE|PERFORM|KILL|INTO|DEFAULT)\b/;

/** Calls whose first argument is run as SQL. */
const RUNNERS = new Set(['query', 'execute', 'exec', 'prepare', 'run', 'unsafe']);

/** Array methods that keep (a subset of) the receiver's elements. */
const KEEPS = new Set(['filter', 'slice', 'concat', 'reverse', 'sort', 'toSorted', 'toReversed']);
/** Array methods that call a callback with each element. */
const CALLBACKS = new Set(['map', 'flatMap', 'forEach', 'filter', 'some', 'every', 'find']);

/** The dialect source files of this repository. */
export function dialectSources(root = ROOT) {
  const out = [];
  const walk = (dir) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith('.ts') && !p.endsWith('.d.ts')) out.push(p);
    }
  };
  const packages = join(root, 'packages');
  for (const d of readdirSync(packages))
    if (
      (d.startsWith('dialect-') || d === 'sql') &&
      statSync(join(packages, d, 'src'), { throwIfNoEntry: false })?.isDirectory()
    )
      walk(join(packages, d, 'src'));
  return out.sort();
}

function compilerOptions(root) {
  const file = join(root, 'tsconfig.base.json');
  const { config } = ts.readConfigFile(file, ts.sys.readFile);
  return { ...ts.parseJsonConfigFileContent(config, ts.sys, root).options, noEmit: true };
}

/**
 * Checks the files; answers one finding per interpolated expression that may carry a value:
 * `{ file, line, column, text, reason }`.
 */
export function checkSql(
  files,
  { root = ROOT, noDoubleQuotes = (file) => /[\\/]dialect-mysql[\\/]/.test(file) } = {},
) {
  const program = ts.createProgram(files, compilerOptions(root));
  const checker = program.getTypeChecker();
  const mine = new Set(files.map((f) => resolve(f)));
  const sources = program.getSourceFiles().filter((sf) => mine.has(resolve(sf.fileName)));

  // One pass: assignments, pushes and call sites of every symbol and function.
  const assigned = new Map(); // symbol -> expressions assigned
  const pushed = new Map(); // symbol -> expressions pushed (spread marked)
  const calls = new Map(); // function declaration -> call expressions
  const mapped = new Map(); // symbol of a Map -> values set
  const symbolOf = (node) => {
    // `{ where }`: the name stands for the variable `where`, not the property it writes.
    const shorthand =
      ts.isIdentifier(node) && ts.isShorthandPropertyAssignment(node.parent) && node.parent.name === node;
    let s = shorthand
      ? checker.getShorthandAssignmentValueSymbol(node.parent)
      : checker.getSymbolAtLocation(node);
    if (s && s.flags & ts.SymbolFlags.Alias) s = checker.getAliasedSymbol(s);
    return s;
  };
  const add = (map, key, value) => {
    if (key === undefined) return;
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const sf of sources) {
    const visit = (n) => {
      if (
        ts.isBinaryExpression(n) &&
        n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
        n.operatorToken.kind <= ts.SyntaxKind.LastAssignment
      )
        add(assigned, symbolOf(n.left), n.right);
      // A property of an object literal gives the property of the type it is written for.
      if (
        (ts.isPropertyAssignment(n) || ts.isShorthandPropertyAssignment(n)) &&
        ts.isObjectLiteralExpression(n.parent)
      ) {
        const prop = checker.getContextualType(n.parent)?.getProperty(n.name.getText());
        add(assigned, prop, ts.isPropertyAssignment(n) ? n.initializer : n.name);
      }
      if (ts.isCallExpression(n)) {
        const callee = n.expression;
        if (ts.isPropertyAccessExpression(callee) && ['push', 'unshift'].includes(callee.name.text))
          for (const a of n.arguments) add(pushed, symbolOf(callee.expression), a);
        // Map#set(key, value): the values a `.values()` answers.
        if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'set' && n.arguments.length === 2)
          add(mapped, symbolOf(callee.expression), n.arguments[1]);
        const decl = checker.getResolvedSignature(n)?.declaration;
        if (decl) add(calls, decl, n);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }

  const findings = [];
  const memo = new Map();
  const inProgress = new Set();
  const checkedHere = (decl) => decl !== undefined && mine.has(resolve(decl.getSourceFile().fileName));
  const where = (node) => {
    const sf = node.getSourceFile();
    const { line, character } = sf.getLineAndCharacterOfPosition(node.getStart(sf));
    return { file: relative(root, sf.fileName), line: line + 1, column: character + 1 };
  };
  const short = (node) => node.getText().replace(/\s+/g, ' ').slice(0, 80);

  /** A type that cannot carry text: number, bigint, boolean, a string or number literal, nullish. */
  function inert(type) {
    const parts = type.isUnion() ? type.types : [type];
    return parts.every(
      (t) =>
        t.flags &
        (ts.TypeFlags.NumberLike |
          ts.TypeFlags.BigIntLike |
          ts.TypeFlags.BooleanLike |
          ts.TypeFlags.StringLiteral |
          ts.TypeFlags.Undefined |
          ts.TypeFlags.Null),
    );
  }

  /** Why `e` (text spliced into SQL) may carry a value, or undefined when it cannot. */
  function why(e) {
    if (memo.has(e)) return memo.get(e);
    if (inProgress.has(e)) return undefined; // a cycle adds nothing new
    inProgress.add(e);
    const r = whyUncached(e);
    inProgress.delete(e);
    memo.set(e, r);
    return r;
  }

  function all(list, f = why) {
    for (const x of list) {
      const r = f(x);
      if (r !== undefined) return r;
    }
    return undefined;
  }

  /** Why a function's result may carry a value (every return checked). */
  function whyReturns(fn) {
    if (fn.body === undefined) return `${fn.name?.getText() ?? 'a function'} has no body here`;
    if (!ts.isBlock(fn.body)) return why(fn.body);
    const returns = [];
    const visit = (n) => {
      if (ts.isFunctionLike(n) && n !== fn) return;
      if (ts.isReturnStatement(n) && n.expression) returns.push(n.expression);
      ts.forEachChild(n, visit);
    };
    visit(fn.body);
    return all(returns);
  }

  function whyUncached(e) {
    if (
      ts.isStringLiteral(e) ||
      ts.isNoSubstitutionTemplateLiteral(e) ||
      ts.isNumericLiteral(e) ||
      e.kind === ts.SyntaxKind.TrueKeyword ||
      e.kind === ts.SyntaxKind.FalseKeyword ||
      e.kind === ts.SyntaxKind.NullKeyword
    )
      return undefined;
    if (ts.isTemplateExpression(e)) return all(e.templateSpans.map((s) => s.expression));
    if (
      ts.isParenthesizedExpression(e) ||
      ts.isAsExpression(e) ||
      ts.isNonNullExpression(e) ||
      ts.isSatisfiesExpression(e) ||
      ts.isTypeAssertionExpression(e)
    )
      return why(e.expression);
    if (ts.isConditionalExpression(e)) return why(e.whenTrue) ?? why(e.whenFalse);
    if (ts.isBinaryExpression(e)) {
      const op = e.operatorToken.kind;
      if (
        op === ts.SyntaxKind.PlusToken ||
        op === ts.SyntaxKind.QuestionQuestionToken ||
        op === ts.SyntaxKind.BarBarToken
      )
        return why(e.left) ?? why(e.right);
    }
    if (inert(checker.getTypeAtLocation(e))) return undefined;
    if (ts.isPropertyAccessExpression(e) && e.name.text === 'sql') return undefined;
    if (ts.isCallExpression(e)) return whyCall(e);
    if (ts.isElementAccessExpression(e)) {
      const table = e.expression;
      return whyTable(table) && `${short(e)} is a lookup in ${short(table)}, not a table of fixed fragments`;
    }
    if (ts.isIdentifier(e) || ts.isPropertyAccessExpression(e)) return whySymbol(e);
    return `${short(e)} is not fixed text, a quoted identifier or a placeholder`;
  }

  function whyCall(e) {
    const callee = e.expression;
    const name = ts.isPropertyAccessExpression(callee)
      ? callee.name.text
      : ts.isIdentifier(callee)
        ? callee.text
        : undefined;
    if (name !== undefined && HELPERS.has(name)) return undefined;
    if (ts.isPropertyAccessExpression(callee) && name === 'join') return whyArray(callee.expression);
    const decl = checker.getResolvedSignature(e)?.declaration;
    if (decl && checkedHere(decl) && ts.isFunctionLike(decl)) {
      const r = whyReturns(decl);
      return r && `${short(e)} answers a value: ${r}`;
    }
    return `${short(e)} calls ${name ?? 'a function'}, which is not an SQL helper`;
  }

  /** Why a constant table's values may carry a value (an object or array literal of passing values). */
  function whyTable(t) {
    const s = ts.isIdentifier(t) ? symbolOf(t) : undefined;
    const d = s?.valueDeclaration;
    if (!d || !ts.isVariableDeclaration(d) || !d.initializer) return `${short(t)} is not a constant table`;
    let init = d.initializer;
    while (ts.isAsExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
    if (ts.isObjectLiteralExpression(init))
      return all(init.properties, (p) =>
        ts.isPropertyAssignment(p) ? why(p.initializer) : `${short(p)} is not a fixed entry`,
      );
    if (ts.isArrayLiteralExpression(init)) return all(init.elements);
    return `${short(t)} is not a constant table`;
  }

  /**
   * Why an element of an array may carry a value; with `index`, the array holds tuples and only
   * their element `index` counts (a callback's `([a, b]) => ..`).
   */
  /** {@link whyArrayUncached} with the cycle guard {@link why} has: an array met again on its own path adds nothing new. */
  const arraysInProgress = new Set();
  function whyArray(a, index) {
    const k = `${index ?? ''}@${a.getSourceFile().fileName}:${a.pos}:${a.end}`;
    if (arraysInProgress.has(k)) return undefined;
    arraysInProgress.add(k);
    try {
      return whyArrayUncached(a, index);
    } finally {
      arraysInProgress.delete(k);
    }
  }

  function whyArrayUncached(a, index) {
    const element = (x) => {
      if (index === undefined) return why(x);
      if (ts.isArrayLiteralExpression(x) && x.elements[index]) return why(x.elements[index]);
      return `${short(x)} is not a tuple written here`;
    };
    if (
      index === undefined &&
      inert(checker.getTypeAtLocation(a).getNumberIndexType?.() ?? checker.getAnyType())
    )
      return undefined;
    if (ts.isParenthesizedExpression(a) || ts.isAsExpression(a) || ts.isNonNullExpression(a))
      return whyArray(a.expression, index);
    if (ts.isConditionalExpression(a)) return whyArray(a.whenTrue, index) ?? whyArray(a.whenFalse, index);
    // No array at all: nothing in it.
    if (ts.isIdentifier(a) && a.text === 'undefined') return undefined;
    // `x ?? y`, `x || y`: either array.
    if (
      ts.isBinaryExpression(a) &&
      (a.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken ||
        a.operatorToken.kind === ts.SyntaxKind.BarBarToken)
    )
      return whyArray(a.left, index) ?? whyArray(a.right, index);
    if (ts.isArrayLiteralExpression(a))
      return all(a.elements, (x) => (ts.isSpreadElement(x) ? whyArray(x.expression, index) : element(x)));
    if (ts.isCallExpression(a)) {
      const callee = a.expression;
      if (ts.isPropertyAccessExpression(callee)) {
        const m = callee.name.text;
        if (index !== undefined) return `${short(a)} is not a tuple array written here`;
        if (m === 'values' && a.arguments.length === 0 && ts.isIdentifier(callee.expression)) {
          const values = mapped.get(symbolOf(callee.expression));
          return values ? all(values) : `${short(a)} reads a map of unknown origin`;
        }
        if (m === 'map' || m === 'flatMap') {
          const fn = a.arguments[0];
          if (fn && ts.isIdentifier(fn) && HELPERS.has(fn.text)) return undefined;
          if (fn && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)))
            return m === 'map' ? whyReturns(fn) : whyReturnsArray(fn);
          return `${short(a)} maps with a function not written here`;
        }
        if (KEEPS.has(m))
          return whyArray(callee.expression) ?? all(m === 'concat' ? a.arguments : [], whyArray);
      }
      if (ts.isPropertyAccessExpression(callee) && callee.getText() === 'Array.from') {
        const fn = a.arguments[1];
        if (fn && (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn))) return whyReturns(fn);
        return whyArray(a.arguments[0]);
      }
      const decl = checker.getResolvedSignature(a)?.declaration;
      if (decl && checkedHere(decl) && ts.isFunctionLike(decl)) return whyReturnsArray(decl, index);
      return `${short(a)} is an array from a call that is not checked`;
    }
    if (ts.isIdentifier(a) || ts.isPropertyAccessExpression(a)) {
      const s = symbolOf(a);
      const d = s?.valueDeclaration;
      if (!s || !d) return `${short(a)} is an array of unknown origin`;
      if (ts.isParameter(d) && d.dotDotDotToken && index === undefined) return whyRest(d);
      if (ts.isParameter(d)) return whyParameter(d, (x) => whyArray(x, index));
      const sources = [];
      if ((ts.isVariableDeclaration(d) || ts.isPropertyDeclaration(d)) && d.initializer)
        sources.push(() => whyArray(d.initializer, index));
      if (ts.isVariableDeclaration(d) && ts.isForOfStatement(d.parent?.parent))
        return `${short(a)} iterates values`;
      for (const x of assigned.get(s) ?? []) sources.push(() => whyArray(x, index));
      for (const x of pushed.get(s) ?? [])
        sources.push(() => (ts.isSpreadElement(x) ? whyArray(x.expression, index) : element(x)));
      if (sources.length === 0) return `${short(a)} is an array of unknown origin`;
      return all(sources, (f) => f());
    }
    return `${short(a)} is an array of unknown origin`;
  }

  function whyReturnsArray(fn, index) {
    if (fn.body === undefined) return 'no body';
    if (!ts.isBlock(fn.body)) return whyArray(fn.body, index);
    const returns = [];
    const visit = (n) => {
      if (ts.isFunctionLike(n) && n !== fn) return;
      if (ts.isReturnStatement(n) && n.expression) returns.push(n.expression);
      ts.forEachChild(n, visit);
    };
    visit(fn.body);
    return all(returns, (r) => whyArray(r, index));
  }

  /** Why a parameter may carry a value: the argument at every call site, or the array a callback runs over. */
  function whyParameter(p, f = why) {
    const fn = p.parent;
    const index = fn.parameters.indexOf(p);
    const name = p.name.getText();
    // A callback of an array method: its first parameter is an element of the receiver.
    if ((ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) && ts.isCallExpression(fn.parent)) {
      const call = fn.parent;
      const callee = call.expression;
      if (
        index === 0 &&
        ts.isPropertyAccessExpression(callee) &&
        CALLBACKS.has(callee.name.text) &&
        f === why
      )
        return whyArray(callee.expression);
      return `parameter ${name} of a callback passed to ${short(callee)}`;
    }
    const sites = calls.get(fn) ?? overridden(fn);
    if (sites.length === 0)
      return `parameter ${name} of ${fn.name?.getText() ?? 'a function'}: no call in the dialect sources shows it is SQL`;
    return all(sites, (c) => {
      const arg = c.arguments[index];
      if (arg === undefined) return p.initializer ? f(p.initializer) : undefined;
      if (ts.isSpreadElement(arg)) return `a spread argument for ${name}`;
      const r = f(arg);
      return r && `${name} is given ${short(arg)} at ${where(c).file}:${where(c).line}: ${r}`;
    });
  }

  /**
   * The call sites of the method `fn` overrides: a dialect's hook (`distinct(a, b)`) is called by
   * the statement builder it extends, on `this`. Matched by the base class's name and the method's
   * name, since the base may be read from its package's declarations.
   */
  function overridden(fn) {
    if (!ts.isMethodDeclaration(fn) || !ts.isClassDeclaration(fn.parent)) return [];
    const name = fn.name.getText();
    const bases = checker.getTypeAtLocation(fn.parent).getBaseTypes?.() ?? [];
    const out = [];
    for (const base of bases) {
      const baseName = base.getSymbol()?.getName();
      for (const [decl, list] of calls)
        if (
          ts.isMethodDeclaration(decl) &&
          decl.name.getText() === name &&
          ts.isClassDeclaration(decl.parent) &&
          decl.parent.name?.text === baseName
        )
          out.push(...list);
    }
    return out;
  }

  /** Why an element of a rest parameter may carry a value: every argument from its place on. */
  function whyRest(p) {
    const fn = p.parent;
    const index = fn.parameters.indexOf(p);
    const sites = calls.get(fn) ?? [];
    if (sites.length === 0) return `rest parameter ${p.name.getText()}: no call in the dialect sources`;
    return all(sites, (c) =>
      all(c.arguments.slice(index), (x) => (ts.isSpreadElement(x) ? whyArray(x.expression) : why(x))),
    );
  }

  function whySymbol(e) {
    const s = symbolOf(ts.isPropertyAccessExpression(e) ? e : e);
    const d = s?.valueDeclaration;
    if (!s || !d || !checkedHere(d))
      return `${short(e)} is ${ts.isPropertyAccessExpression(e) ? 'a property' : 'a name'} declared outside the dialect sources (a value)`;
    if (ts.isParameter(d)) return whyParameter(d);
    if (ts.isVariableDeclaration(d) && ts.isForOfStatement(d.parent?.parent))
      return whyArray(d.parent.parent.expression);
    if (ts.isGetAccessorDeclaration(d)) return whyReturns(d);
    if (ts.isBindingElement(d)) {
      // `([a, b]) => ..` over an array of tuples: element `index` of each.
      const pattern = d.parent;
      const param = pattern.parent;
      const fn = param?.parent;
      if (
        ts.isArrayBindingPattern(pattern) &&
        ts.isParameter(param) &&
        fn &&
        (ts.isArrowFunction(fn) || ts.isFunctionExpression(fn)) &&
        fn.parameters[0] === param &&
        ts.isCallExpression(fn.parent) &&
        ts.isPropertyAccessExpression(fn.parent.expression) &&
        CALLBACKS.has(fn.parent.expression.name.text)
      )
        return whyArray(fn.parent.expression.expression, pattern.elements.indexOf(d));
      return `${short(e)} is destructured from a value`;
    }
    const sources = [];
    if ((ts.isVariableDeclaration(d) || ts.isPropertyDeclaration(d)) && d.initializer)
      sources.push(d.initializer);
    if (ts.isShorthandPropertyAssignment(d) || ts.isPropertyAssignment(d)) {
      if (ts.isPropertyAssignment(d)) sources.push(d.initializer);
    }
    sources.push(...(assigned.get(s) ?? []));
    if (sources.length === 0) return `${short(e)} is never given fixed SQL`;
    const r = all(sources);
    return r && `${short(e)}: ${r}`;
  }

  /** The SQL text this file builds: templates and `+` chains with SQL words, `sql` properties and variables. */
  function isSqlText(n) {
    if (ts.isTemplateExpression(n)) {
      const text = [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(' ');
      return SQL_WORDS.test(text);
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      if (ts.isBinaryExpression(n.parent) && n.parent.operatorToken.kind === ts.SyntaxKind.PlusToken)
        return false;
      const parts = [];
      const flat = (x) => {
        if (ts.isBinaryExpression(x) && x.operatorToken.kind === ts.SyntaxKind.PlusToken) {
          flat(x.left);
          flat(x.right);
        } else parts.push(x);
      };
      flat(n);
      return parts.some(
        (p) => (ts.isStringLiteral(p) || ts.isNoSubstitutionTemplateLiteral(p)) && SQL_WORDS.test(p.text),
      );
    }
    return false;
  }

  const reported = new Set();
  const report = (node, reason) => {
    const key = `${node.pos}:${node.getSourceFile().fileName}`;
    if (reported.has(key)) return;
    reported.add(key);
    findings.push({ ...where(node), text: short(node), reason });
  };
  /** MySQL text never holds `"`: a string under the default mode, an identifier under ANSI_QUOTES. */
  const checkQuotes = (node, text) => {
    if (text.includes('"') && noDoubleQuotes(node.getSourceFile().fileName))
      report(node, 'a double quote in MySQL SQL text: a string by default, an identifier under ANSI_QUOTES');
  };
  /** Checks the pieces of one SQL expression. */
  const checkPieces = (n) => {
    if (ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) return checkQuotes(n, n.text);
    if (ts.isTemplateExpression(n)) {
      checkQuotes(n, [n.head.text, ...n.templateSpans.map((s) => s.literal.text)].join(''));
      for (const s of n.templateSpans) {
        const r = why(s.expression);
        if (r !== undefined) report(s.expression, r);
      }
      return;
    }
    if (ts.isBinaryExpression(n) && n.operatorToken.kind === ts.SyntaxKind.PlusToken) {
      checkPieces(n.left);
      checkPieces(n.right);
      return;
    }
    const r = why(n);
    if (r !== undefined) report(n, r);
  };
  for (const sf of sources) {
    const visit = (n) => {
      if (isSqlText(n)) checkPieces(n);
      else if ((ts.isStringLiteral(n) || ts.isNoSubstitutionTemplateLiteral(n)) && SQL_WORDS.test(n.text))
        checkQuotes(n, n.text);
      // `sql: ...`, `const sql = ...`, and the statement a runner is given.
      else if (
        (ts.isPropertyAssignment(n) || ts.isVariableDeclaration(n)) &&
        n.name.getText() === 'sql' &&
        n.initializer &&
        !isCacheKey(n)
      )
        checkPieces(n.initializer);
      else if (
        ts.isCallExpression(n) &&
        ts.isPropertyAccessExpression(n.expression) &&
        RUNNERS.has(n.expression.name.text) &&
        n.arguments[0] &&
        (ts.isTemplateExpression(n.arguments[0]) || ts.isBinaryExpression(n.arguments[0]))
      )
        checkPieces(n.arguments[0]);
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return findings;
}

/**
 * `unprepare({ sql, ... })` names a statement already prepared (mysql2's cache key): it runs
 * nothing, so its `sql` is not SQL text being built.
 */
function isCacheKey(n) {
  const obj = n.parent;
  let call = obj?.parent;
  while (call !== undefined && (ts.isAsExpression(call) || ts.isParenthesizedExpression(call)))
    call = call.parent;
  return (
    ts.isPropertyAssignment(n) &&
    ts.isObjectLiteralExpression(obj) &&
    call !== undefined &&
    ts.isCallExpression(call) &&
    ts.isPropertyAccessExpression(call.expression) &&
    call.expression.name.text === 'unprepare'
  );
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const files = process.argv.length > 2 ? process.argv.slice(2) : dialectSources();
  const findings = checkSql(files);
  for (const f of findings) console.log(`${f.file}:${f.line}:${f.column} ${f.text}\n  ${f.reason}`);
  console.log(
    `${findings.length} place(s) where SQL text may be built from a value, in ${files.length} files`,
  );
  process.exit(findings.length === 0 ? 0 : 1);
}
