/**
 * CPython's `random` module, as far as τ²-bench's runner uses it: `random.seed(int)` followed by
 * `random.randint(a, b)`. The generator is the Mersenne Twister (MT19937) seeded through
 * `init_by_array` with the seed's 32-bit words, and `randint` draws by rejection from
 * `getrandbits(bit_length(width))`, so the numbers equal CPython's for the same seed.
 */
export class PythonRandom {
  readonly #state = new Uint32Array(624);
  #index = 625;

  /** `random.seed(seed)` for a Python int (the sign is ignored, as CPython does). */
  constructor(seed: number | bigint) {
    this.#seedByArray(seedWords(seed));
  }

  #initGenrand(s: number): void {
    const mt = this.#state;
    mt[0] = s >>> 0;
    for (let i = 1; i < 624; i++) {
      const previous = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, previous) + i) >>> 0;
    }
    this.#index = 624;
  }

  #seedByArray(key: readonly number[]): void {
    const mt = this.#state;
    this.#initGenrand(19650218);
    let i = 1;
    let j = 0;
    for (let k = Math.max(624, key.length); k > 0; k--) {
      const previous = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(previous, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= 624) {
        mt[0] = mt[623]!;
        i = 1;
      }
      if (j >= key.length) j = 0;
    }
    for (let k = 623; k > 0; k--) {
      const previous = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(previous, 1566083941)) - i) >>> 0;
      i++;
      if (i >= 624) {
        mt[0] = mt[623]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** The next 32-bit output of MT19937. */
  nextUint32(): number {
    const mt = this.#state;
    if (this.#index >= 624) {
      for (let k = 0; k < 624; k++) {
        const y = (mt[k]! & 0x80000000) | (mt[(k + 1) % 624]! & 0x7fffffff);
        mt[k] = mt[(k + 397) % 624]! ^ (y >>> 1) ^ (y & 1 ? 0x9908b0df : 0);
      }
      this.#index = 0;
    }
    let y = mt[this.#index++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `random.getrandbits(k)` for 1 ≤ k ≤ 32. */
  getrandbits(k: number): number {
    if (!Number.isInteger(k) || k < 1 || k > 32) throw new RangeError(`getrandbits(${k}): 1 ≤ k ≤ 32 here`);
    return this.nextUint32() >>> (32 - k);
  }

  /** `random.randint(a, b)`: a whole number in [a, b], both ends included (width below 2^32). */
  randint(a: number, b: number): number {
    const width = b - a + 1;
    if (!Number.isInteger(a) || !Number.isInteger(b) || width < 1 || width >= 2 ** 32) {
      throw new RangeError(`randint(${a}, ${b}): expected whole numbers with a ≤ b and b − a < 2^32`);
    }
    const bits = width.toString(2).length;
    let r = this.getrandbits(bits);
    while (r >= width) r = this.getrandbits(bits);
    return a + r;
  }
}

/** The seed's absolute value as little-endian 32-bit words (at least one), as CPython keys MT. */
function seedWords(seed: number | bigint): number[] {
  if (typeof seed === "number" && !Number.isSafeInteger(seed)) {
    throw new RangeError(`seed ${seed} must be a whole number`);
  }
  let value = BigInt(seed);
  if (value < 0n) value = -value;
  const words: number[] = [];
  do {
    words.push(Number(value & 0xffffffffn));
    value >>= 32n;
  } while (value > 0n);
  return words;
}
