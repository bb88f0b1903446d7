// No import cycle among the project's modules: each folder stacks on those below it (eslint.config.js
// holds the layer rules between folders), and within one no two modules need each other. A cycle
// ties modules that can no longer be read, tested or moved apart, and evaluates one of them
// half-loaded. Every import counts, type-only ones too: a cycle through types alone still makes
// two modules one.
import { readdirSync, readFileSync, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const FOLDERS = ['advisor', 'analyzer', 'bench', 'cli', 'client', 'gateway', 'server', 'shadow', 'shared', 'snapshot', 'test'];
const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' || entry.name === 'migrations' ? [] : sourceFiles(full);
    return SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

/** The project file a relative specifier names, as TypeScript's bundler resolution finds it. */
function resolve(from: string, specifier: string): string | undefined {
  const base = path.resolve(path.dirname(from), specifier);
  const stem = base.replace(/\.(js|mjs)$/, '');
  const candidates = [
    base,
    ...['.ts', '.tsx', '.mts', '.mjs', '.js'].map((ext) => stem + ext),
    ...['index.ts', 'index.tsx'].map((name) => path.join(base, name)),
  ];
  return candidates.find((file) => existsSync(file) && statSync(file).isFile());
}

function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles.filter((i) => i.fileName.startsWith('.')).map((i) => resolve(file, i.fileName));
    graph.set(
      file,
      targets.filter((target): target is string => target !== undefined),
    );
  }
  return graph;
}

/** Strongly connected components of more than one module, or of one importing itself (Tarjan). */
function cycles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(node, Math.min(low.get(node)!, index.get(target)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(path.relative(ROOT, member));
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe('the import graph', () => {
  const graph = importGraph(FOLDERS.flatMap((folder) => sourceFiles(path.join(ROOT, folder))));

  it('is read from every source folder', () => {
    // a resolver that found nothing would find no cycle either
    const edges = [...graph.values()].reduce((sum, targets) => sum + targets.length, 0);
    expect(graph.size).toBeGreaterThan(400);
    expect(edges).toBeGreaterThan(graph.size);
  });

  it('has no cycle', () => {
    expect(cycles(graph)).toEqual([]);
  });

  it('would show a cycle', () => {
    const a = path.join(ROOT, 'a.ts');
    const b = path.join(ROOT, 'b.ts');
    expect(
      cycles(
        new Map([
          [a, [b]],
          [b, [a]],
        ]),
      ),
    ).toEqual([['a.ts', 'b.ts']]);
  });
});
