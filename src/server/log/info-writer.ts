/**
 * --log-text-info-buffer-size: the info stream of a split text logger behind a buffer of that
 * many bytes, as the reference's bufio.Writer: a write that would overflow the buffer first
 * sends what is held, and a write larger than the buffer goes straight out. What is held is
 * sent at every flush (each --log-flush-frequency, and at shutdown).
 */
export class BufferedInfoWriter {
  private held: string[] = []
  private heldBytes = 0

  constructor(
    private readonly sink: NodeJS.WritableStream,
    private readonly size: number,
  ) {}

  write(text: string): void {
    const bytes = Buffer.byteLength(text)
    if (this.heldBytes + bytes > this.size) this.flush()
    if (bytes >= this.size) {
      this.sink.write(text)
      return
    }
    this.held.push(text)
    this.heldBytes += bytes
  }

  flush(): void {
    if (this.heldBytes === 0) return
    const text = this.held.join('')
    this.held = []
    this.heldBytes = 0
    this.sink.write(text)
  }
}
