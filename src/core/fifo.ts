/**
 * A first-in first-out queue whose `shift` costs the same however long it is. `Array#shift`
 * moves every element once an array is past V8's small sizes: at 100,000 waiting it took
 * ~80 µs a call here, so a queue that grows when its consumer stalls would slow it down
 * further just as it should catch up.
 */
export class Fifo<T> {
  #items: (T | undefined)[] = [];
  #head = 0;

  get length(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** The first item, left in place. */
  peek(): T | undefined {
    return this.#items[this.#head];
  }

  shift(): T | undefined {
    if (this.#head === this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head++] = undefined;
    if (this.#head === this.#items.length) this.#clear();
    else if (this.#head >= 1024 && this.#head * 2 >= this.#items.length) {
      // Half the array is taken: copy the rest down, so memory stays within twice the length.
      this.#items = this.#items.slice(this.#head);
      this.#head = 0;
    }
    return item;
  }

  /** Puts `items` back before the first one, in their order. */
  unshift(items: readonly T[]): void {
    this.#items = [...items, ...this.#items.slice(this.#head)];
    this.#head = 0;
  }

  /** Every item, first first, leaving the queue empty. */
  takeAll(): T[] {
    const all = this.#items.slice(this.#head) as T[];
    this.#clear();
    return all;
  }

  #clear(): void {
    this.#items.length = 0;
    this.#head = 0;
  }
}
