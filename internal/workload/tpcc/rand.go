package tpcc

import (
	"math/rand/v2"
	"slices"
)

// NURand constants (clause 2.1.6): A per field, and the run-time constant C chosen in [0..A].
const (
	aCLast = 255
	aCID   = 1023
	aItem  = 8191
)

// Constants are the C values of NURand for one use (load or run).
type Constants struct {
	CLast int `json:"c_last"`
	CID   int `json:"c_id"`
	Item  int `json:"ol_i_id"`
}

// LoadConstants draws the C values used to populate the database.
func LoadConstants(r *rand.Rand) Constants {
	return Constants{CLast: uniform(r, 0, aCLast), CID: uniform(r, 0, aCID), Item: uniform(r, 0, aItem)}
}

// ValidCDelta is clause 2.1.6.1: |C-Load - C-Run| for C_LAST must be in [65..119], not 96 or 112.
func ValidCDelta(load, run int) bool {
	d := load - run
	if d < 0 {
		d = -d
	}
	return d >= 65 && d <= 119 && d != 96 && d != 112
}

// RunConstants draws the run's C values; C_LAST's is redrawn until its delta to the load value is valid.
func RunConstants(r *rand.Rand, load Constants) Constants {
	c := Constants{CID: uniform(r, 0, aCID), Item: uniform(r, 0, aItem)}
	for {
		c.CLast = uniform(r, 0, aCLast)
		if ValidCDelta(load.CLast, c.CLast) {
			return c
		}
	}
}

// uniform returns an integer in [lo..hi], inclusive.
func uniform(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// NURand is clause 2.1.6: (((random(0,A) | random(x,y)) + C) % (y-x+1)) + x.
func NURand(r *rand.Rand, a, c, x, y int) int {
	return (((uniform(r, 0, a) | uniform(r, x, y)) + c) % (y - x + 1)) + x
}

// Last-name syllables, clause 4.3.2.3.
var syllables = [10]string{"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING"}

// LastName builds C_LAST from a number in [0..999]: its three digits select three syllables.
func LastName(n int) string {
	return syllables[n/100] + syllables[(n/10)%10] + syllables[n%10]
}

// appendLastName is LastName without allocating.
func appendLastName(b []byte, n int) []byte {
	b = append(b, syllables[n/100]...)
	b = append(b, syllables[(n/10)%10]...)
	return append(b, syllables[n%10]...)
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// appendAString appends a random alphanumeric string of random length in [lo..hi] (clause 4.3.2.2).
// Six bits of a 64-bit draw pick each character; values past the alphabet are redrawn, so every
// character is equally likely.
func appendAString(b []byte, r *rand.Rand, lo, hi int) []byte {
	n := uniform(r, lo, hi)
	return appendChars(b, r, n, alnum)
}

// appendChars is the load's hottest loop (most of the bytes of STOCK and ORDER-LINE): the n
// characters are written into room made once, ten six-bit draws to each 64-bit number.
func appendChars(b []byte, r *rand.Rand, n int, alphabet string) []byte {
	start := len(b)
	b = slices.Grow(b, n)[:start+n]
	out := b[start:]
	for i := 0; i < n; {
		bits := r.Uint64()
		for k := 0; k < 10 && i < n; k++ {
			if v := bits & 63; v < uint64(len(alphabet)) {
				out[i] = alphabet[v]
				i++
			}
			bits >>= 6
		}
	}
	return b
}

// appendNString appends n random digits.
func appendNString(b []byte, r *rand.Rand, n int) []byte {
	for i := 0; i < n; i++ {
		b = append(b, byte('0'+r.IntN(10)))
	}
	return b
}

// appendData appends an a-string [26..50]; when original, "ORIGINAL" replaces 8 consecutive
// characters at a random position (clause 4.3.3.1, I_DATA and S_DATA).
func appendData(b []byte, r *rand.Rand, original bool) []byte {
	start := len(b)
	b = appendAString(b, r, 26, 50)
	if original {
		n := len(b) - start
		pos := uniform(r, 0, n-8)
		copy(b[start+pos:], "ORIGINAL")
	}
	return b
}

// appendZip appends a zip code: 4 random digits and "11111" (clause 4.3.2.7).
func appendZip(b []byte, r *rand.Rand) []byte {
	b = appendNString(b, r, 4)
	return append(b, "11111"...)
}

// appendState appends two random letters.
func appendState(b []byte, r *rand.Rand) []byte {
	return append(b, byte('A'+r.IntN(26)), byte('A'+r.IntN(26)))
}

// chooseExactly returns a set of exactly k of the n indexes [0..n), chosen uniformly: the spec's
// "10% of rows, selected at random", exact rather than a Bernoulli draw.
func chooseExactly(r *rand.Rand, n, k int) []bool {
	perm := make([]int32, n)
	for i := range perm {
		perm[i] = int32(i)
	}
	chosen := make([]bool, n)
	for i := 0; i < k; i++ {
		j := i + r.IntN(n-i)
		perm[i], perm[j] = perm[j], perm[i]
		chosen[perm[i]] = true
	}
	return chosen
}

// permutation returns a uniformly random permutation of [1..n] (Fisher-Yates).
func permutation(r *rand.Rand, n int) []int {
	p := make([]int, n)
	for i := range p {
		p[i] = i + 1
	}
	for i := n - 1; i > 0; i-- {
		j := r.IntN(i + 1)
		p[i], p[j] = p[j], p[i]
	}
	return p
}

// newRand returns the deterministic stream for one purpose of one seed.
func newRand(seed uint64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, stream))
}
