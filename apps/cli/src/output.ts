import { Presets, SingleBar } from 'cli-progress';

/** Writes human output to stdout, or one JSON document with `--json`. Progress always goes to stderr. */
export class Output {
  constructor(readonly json: boolean) {}

  /** Prints `lines` for humans, or `data` as JSON. */
  result(data: unknown, lines: string[]): void {
    if (this.json) process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
    else process.stdout.write(`${lines.join('\n')}\n`);
  }

  /** A progress bar over `total` steps, on stderr; silent when stderr is not a terminal and in JSON mode. */
  progress(total: number, title: string) {
    const interactive = process.stderr.isTTY && !this.json;
    const bar = new SingleBar(
      { format: `${title} [{bar}] {value}/{total} {step}`, stream: process.stderr, hideCursor: true, noTTYOutput: false },
      Presets.shades_classic,
    );
    if (interactive) bar.start(total, 0, { step: '' });
    return {
      step: (step: string) => {
        if (interactive) bar.increment(1, { step });
        else if (!this.json) process.stderr.write(`  · ${step}\n`);
      },
      stop: () => {
        if (interactive) bar.stop();
      },
    };
  }
}
