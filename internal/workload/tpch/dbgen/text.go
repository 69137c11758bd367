package dbgen

import "sync"

// PoolSize is dbgen's TEXT_POOL_SIZE. Every comment column is a random slice of this pool, so a
// smaller pool (DuckDB's generator uses 10 MiB) changes every comment.
const PoolSize = 300 * 1024 * 1024

const poolSeed = 933588178

var (
	poolOnce sync.Once
	pool     []byte
)

// textPool returns the pool, building it on first use (about a second; it is one sequential stream).
func textPool() []byte {
	poolOnce.Do(func() { pool = buildPool(PoolSize) })
	return pool
}

// Warm builds the text pool now, so a caller can overlap it with other start-up work.
func Warm() { textPool() }

func buildPool(size int) []byte {
	d := loadDists()
	r := newRowRand(poolSeed, 1<<31-1)
	// Pre-split every syntax string into its token bytes: sentences take every other character
	// ("N V T"), noun phrases every character ("J, J N").
	tok := func(dd *dist, step int) [][]byte {
		out := make([][]byte, len(dd.values))
		for i, s := range dd.values {
			for j := 0; j < len(s); j += step {
				out[i] = append(out[i], s[j])
			}
		}
		return out
	}
	sentences, nps, vps := tok(d.grammar, 2), tok(d.nounPhrase, 1), tok(d.verbPhrase, 2)
	b := make([]byte, 0, size+256)
	word := func(dd *dist) { b = append(b, dd.random(&r)...); b = append(b, ' ') }
	noun := func() {
		for _, c := range nps[d.nounPhrase.randomIndex(&r)] {
			switch c {
			case 'A':
				word(d.articles)
			case 'J':
				word(d.adjectives)
			case 'D':
				word(d.adverbs)
			case 'N':
				word(d.nouns)
			case ',':
				b = append(b[:len(b)-1], ", "...)
			}
		}
	}
	for len(b) < size {
		for _, c := range sentences[d.grammar.randomIndex(&r)] {
			switch c {
			case 'V':
				for _, v := range vps[d.verbPhrase.randomIndex(&r)] {
					switch v {
					case 'D':
						word(d.adverbs)
					case 'V':
						word(d.verbs)
					case 'X':
						word(d.auxiliaries)
					}
				}
			case 'N':
				noun()
			case 'P':
				b = append(b, d.prepositions.random(&r)...)
				b = append(b, " the "...)
				noun()
			case 'T':
				b = append(b[:len(b)-1], d.terminators.random(&r)...)
			}
			if b[len(b)-1] != ' ' {
				b = append(b, ' ')
			}
		}
	}
	return b[:size]
}
