// What a bench prints: lines and markdown tables, kept so they can be written into a document too.

export interface Report {
  print(line?: string): void;
  table(headers: string[], rows: (string | number)[][]): void;
  lines: string[];
}

export function createReport(): Report {
  const lines: string[] = [];
  const print = (line = '') => {
    console.log(line);
    lines.push(line);
  };
  return {
    print,
    table(headers, rows) {
      print(`| ${headers.join(' | ')} |`);
      print(`|${headers.map(() => '---').join('|')}|`);
      for (const r of rows) print(`| ${r.map(String).join(' | ')} |`);
      print();
    },
    lines,
  };
}
