/**
 * The user documentation as the tests read it: README.md, CONTRIBUTING.md and docs/*.md, their
 * fenced code blocks and headings. The tests that run a snippet take it from here, never from a
 * copy, so that what they run is what the page prints.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

export const REPO = path.join(__dirname, '..', '..');

/** Every page of the user and developer documentation, relative to the repository. */
export function docPages(): string[] {
  const docs = fs.readdirSync(path.join(REPO, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
  return ['README.md', 'CONTRIBUTING.md', ...docs];
}

export interface CodeBlock {
  /** The page, relative to the repository. */
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The fence's info string (`ts`, `sh`, ...), empty when none. */
  readonly lang: string;
  /** The nearest heading above the block (its text, without the `#`s). */
  readonly heading: string;
  /** The block's content, its indentation (inside a list item) removed, ending with a newline. */
  readonly text: string;
}

export interface Heading {
  readonly line: number;
  readonly level: number;
  readonly text: string;
}

export interface Page {
  readonly lines: string[];
  readonly blocks: CodeBlock[];
  readonly headings: Heading[];
}

/** Reads a page: its lines, its fenced code blocks and its headings (not those inside a block). */
export function readPage(page: string): Page {
  const lines = fs.readFileSync(path.join(REPO, page), 'utf8').split('\n');
  const blocks: CodeBlock[] = [];
  const headings: Heading[] = [];
  let heading = '';
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})([\w-]*)\s*$/.exec(lines[i]);
    if (open) {
      const [, indent, fence, lang] = open;
      const body: string[] = [];
      let j = i + 1;
      for (; j < lines.length && !(lines[j].startsWith(indent + fence) && lines[j].trim() === fence); j++) {
        body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
      }
      if (j === lines.length) throw new Error(`${page}:${i + 1}: a code block that never closes`);
      blocks.push({ page, line: i + 1, lang, heading, text: body.join('\n') + '\n' });
      i = j;
      continue;
    }
    const h = /^(#{1,6}) (.+)$/.exec(lines[i]);
    if (h) {
      heading = h[2].trim();
      headings.push({ line: i + 1, level: h[1].length, text: heading });
    }
  }
  return { lines, blocks, headings };
}

/** The code blocks of a page in one language under one heading; throws when there are none. */
export function blocksUnder(page: string, heading: string, lang: string): CodeBlock[] {
  const found = readPage(page).blocks.filter((b) => b.heading === heading && b.lang === lang);
  if (found.length === 0) throw new Error(`${page} has no \`\`\`${lang} block under the heading "${heading}"`);
  return found;
}

/** The module names a TypeScript snippet imports. */
export function imports(code: string): string[] {
  return [...code.matchAll(/^import\s+(?:[^'"]*?\s+from\s+)?'([^']+)';/gm)].map((m) => m[1]);
}

/** The TypeScript blocks of every page that import the given module (the cdktn ones, say). */
export function programsImporting(moduleName: string): CodeBlock[] {
  return docPages().flatMap((p) => readPage(p).blocks).filter((b) => b.lang === 'ts' && imports(b.text).includes(moduleName));
}

/** The Python blocks of every page. */
export function pythonPrograms(): CodeBlock[] {
  return docPages().flatMap((p) => readPage(p).blocks).filter((b) => b.lang === 'python');
}

/** `page:line` of a block, for messages. */
export function where(block: CodeBlock): string {
  return `${block.page}:${block.line}`;
}

/**
 * The compilerOptions of the tsconfig.json that README.md's install lines write (its
 * `echo '{...}' > tsconfig.json` line), as TypeScript reads them: the snippets compile and run
 * with what a user's app gets.
 */
export function readmeCompilerOptions(): ts.CompilerOptions {
  const install = blocksUnder('README.md', 'Install', 'sh').find((b) => b.text.includes('> tsconfig.json'));
  const json = /^echo '(.*)' > tsconfig\.json$/m.exec(install?.text ?? '')?.[1];
  if (!json) throw new Error("README.md: no `echo '{...}' > tsconfig.json` line in a shell block under \"Install\"");
  const { options, errors } = ts.convertCompilerOptionsFromJson(JSON.parse(json).compilerOptions, REPO);
  if (errors.length > 0) throw new Error(`README.md's tsconfig.json: ${errors.map((e) => ts.flattenDiagnosticMessageText(e.messageText, ' ')).join('; ')}`);
  return options;
}
