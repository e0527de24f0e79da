const FRAMES = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/** A one-line spinner on stderr while a step runs; does nothing when stderr is not a terminal. */
export class Progress {
  readonly #enabled: boolean;
  #timer: NodeJS.Timeout | undefined;
  #text = "";
  #started = 0;
  #frame = 0;

  constructor(enabled = process.stderr.isTTY === true) {
    this.#enabled = enabled;
  }

  start(text: string): void {
    if (!this.#enabled) return;
    this.stop();
    this.#text = text;
    this.#started = Date.now();
    this.#timer = setInterval(() => this.#draw(), 100);
    this.#timer.unref();
  }

  /** Clears the line; call before printing anything else. */
  stop(): void {
    if (!this.#enabled || this.#timer === undefined) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    process.stderr.write("\r\x1b[2K");
  }

  #draw(): void {
    const seconds = Math.floor((Date.now() - this.#started) / 1000);
    // Only long steps are worth a spinner: the first half second stays quiet.
    if (Date.now() - this.#started < 500) return;
    const frame = FRAMES[this.#frame++ % FRAMES.length] ?? "";
    process.stderr.write(`\r\x1b[2K${frame} ${this.#text} ${seconds}s`);
  }
}
