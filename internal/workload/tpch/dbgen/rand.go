// Package dbgen generates the TPC-H data set byte for byte as the official dbgen 2.17.3 writes it,
// at any scale factor, in independent chunks.
//
// The algorithms (seeds per column, draws per row, the text pool grammar, the date and price
// arithmetic) follow dbgen's C sources and their faithful ports (airlift's Java tpch, and tpchgen-rs,
// whose per-column streams with a fixed number of draws per row make any row range computable
// without generating what precedes it). The code here is cairn's own.
package dbgen

// dbgen's generator is Park and Miller's minimal standard: seed = seed·16807 mod (2³¹−1).
const (
	modulus    = 2147483647
	multiplier = 16807
)

// rowRand is one column's random stream. Each row consumes exactly seedsPerRow draws: whatever the
// row did not use is skipped at rowFinished, which is what lets a chunk start anywhere.
type rowRand struct {
	seed        int64
	usage       int32
	seedsPerRow int32
}

func newRowRand(seed int64, seedsPerRow int32) rowRand {
	return rowRand{seed: seed, seedsPerRow: seedsPerRow}
}

func (r *rowRand) next() int64 {
	r.seed = r.seed * multiplier % modulus
	r.usage++
	return r.seed
}

// nextInt is dbgen's UnifInt. The range is computed in 32 bits, as the reference does: for the
// range 0..2³¹−1 it overflows to −2³¹, and dbgen's supplier and customer addresses depend on it.
func (r *rowRand) nextInt(lo, hi int32) int32 {
	r.next()
	rng := float64(int32(hi-lo) + 1)
	return lo + int32(float64(r.seed)/modulus*rng)
}

func (r *rowRand) rowFinished() {
	r.advance(int64(r.seedsPerRow - r.usage))
	r.usage = 0
}

func (r *rowRand) advanceRows(rows int64) {
	if r.usage != 0 {
		r.rowFinished()
	}
	r.advance(int64(r.seedsPerRow) * rows)
}

// advance skips count draws in O(log count): seed·16807^count mod m.
func (r *rowRand) advance(count int64) {
	m := int64(multiplier)
	for count > 0 {
		if count%2 != 0 {
			r.seed = m * r.seed % modulus
		}
		count /= 2
		m = m * m % modulus
	}
}

// boundedInt draws from [lo, hi].
type boundedInt struct {
	lo, hi int32
	r      rowRand
}

func newBoundedInt(seed int64, lo, hi int32, seedsPerRow int32) boundedInt {
	return boundedInt{lo: lo, hi: hi, r: newRowRand(seed, seedsPerRow)}
}

func (b *boundedInt) next() int32         { return b.r.nextInt(b.lo, b.hi) }
func (b *boundedInt) rowFinished()        { b.r.rowFinished() }
func (b *boundedInt) advanceRows(n int64) { b.r.advanceRows(n) }

// boundedLong draws keys; dbgen switches to a 64-bit generator from scale factor 30,000 on, where
// keys no longer fit in 31 bits.
type boundedLong struct {
	use64  bool
	lo, hi int64
	r      rowRand // 32-bit stream
	seed64 int64
	usage  int32
}

func newBoundedLong(seed int64, use64 bool, lo, hi int64, seedsPerRow int32) boundedLong {
	return boundedLong{use64: use64, lo: lo, hi: hi, r: newRowRand(seed, seedsPerRow), seed64: seed}
}

func (b *boundedLong) next() int64 {
	if !b.use64 {
		return int64(b.r.nextInt(int32(b.lo), int32(b.hi)))
	}
	b.seed64 = b.seed64*6364136223846793005 + 1
	b.usage++
	v := b.seed64
	if v < 0 {
		v = -v
	}
	return b.lo + v%(b.hi-b.lo+1)
}

func (b *boundedLong) rowFinished() {
	if !b.use64 {
		b.r.rowFinished()
		return
	}
	// dbgen skips the 64-bit stream with the 32-bit multiplier; reproduced as is.
	b.advance64(int64(b.r.seedsPerRow - b.usage))
	b.usage = 0
}

func (b *boundedLong) advanceRows(n int64) {
	if !b.use64 {
		b.r.advanceRows(n)
		return
	}
	if b.usage != 0 {
		b.rowFinished()
	}
	b.advance64(int64(b.r.seedsPerRow) * n)
}

func (b *boundedLong) advance64(count int64) {
	m := int64(multiplier)
	for count > 0 {
		if count%2 != 0 {
			b.seed64 = m * b.seed64 % modulus
		}
		count /= 2
		m = m * m % modulus
	}
}
