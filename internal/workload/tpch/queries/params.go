package queries

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
)

// Params are the substitution parameters of one query, as the text that replaces :1, :2, … in
// the query (qgen's output). Values[0] is :1.
type Params struct {
	Query  int
	Values []string
	// Stream replaces :s (the stream number in the names of per-stream views).
	Stream int
	// Q11Scaled says which rule gave Q11's FRACTION: true for the spec's 0.0001/SF (clause
	// 2.4.11.3, and what qgen writes), false for 0.0001 whatever the scale factor. Only Q11 uses
	// it; the two rules agree at SF 1.
	Q11Scaled bool
	// Validation is true for the validation values of clause 2.4.N.4.
	Validation bool
}

// paramNames are the spec's names of each query's parameters, in :1, :2, … order.
var paramNames = [Count + 1][]string{
	1:  {"DELTA"},
	2:  {"SIZE", "TYPE", "REGION"},
	3:  {"SEGMENT", "DATE"},
	4:  {"DATE"},
	5:  {"REGION", "DATE"},
	6:  {"DATE", "DISCOUNT", "QUANTITY"},
	7:  {"NATION1", "NATION2"},
	8:  {"NATION", "REGION", "TYPE"},
	9:  {"COLOR"},
	10: {"DATE"},
	11: {"NATION", "FRACTION"},
	12: {"SHIPMODE1", "SHIPMODE2", "DATE"},
	13: {"WORD1", "WORD2"},
	14: {"DATE"},
	15: {"DATE"},
	16: {"BRAND", "TYPE", "SIZE1", "SIZE2", "SIZE3", "SIZE4", "SIZE5", "SIZE6", "SIZE7", "SIZE8"},
	17: {"BRAND", "CONTAINER"},
	18: {"QUANTITY"},
	19: {"BRAND1", "BRAND2", "BRAND3", "QUANTITY1", "QUANTITY2", "QUANTITY3"},
	20: {"COLOR", "DATE", "NATION"},
	21: {"NATION"},
	22: {"I1", "I2", "I3", "I4", "I5", "I6", "I7"},
}

// ParamNames returns the spec's names of query q's parameters, in :1, :2, … order.
func ParamNames(q int) []string {
	if q < 1 || q > Count {
		return nil
	}
	return append([]string(nil), paramNames[q]...)
}

// String lists the parameters by name: "SEGMENT=BUILDING, DATE=1995-03-15".
func (p Params) String() string {
	var b strings.Builder
	for i, v := range p.Values {
		if i > 0 {
			b.WriteString(", ")
		}
		name := fmt.Sprintf(":%d", i+1)
		if p.Query >= 1 && p.Query <= Count && i < len(paramNames[p.Query]) {
			name = paramNames[p.Query][i]
		}
		b.WriteString(name + "=" + v)
	}
	return b.String()
}

// validation holds the validation values of clause 2.4.N.4 (qgen -d); Q11's FRACTION is filled
// in by ValidationParams.
var validation = [Count + 1][]string{
	1:  {"90"},
	2:  {"15", "BRASS", "EUROPE"},
	3:  {"BUILDING", "1995-03-15"},
	4:  {"1993-07-01"},
	5:  {"ASIA", "1994-01-01"},
	6:  {"1994-01-01", "0.06", "24"},
	7:  {"FRANCE", "GERMANY"},
	8:  {"BRAZIL", "AMERICA", "ECONOMY ANODIZED STEEL"},
	9:  {"green"},
	10: {"1993-10-01"},
	11: {"GERMANY", ""},
	12: {"MAIL", "SHIP", "1994-01-01"},
	13: {"special", "requests"},
	14: {"1995-09-01"},
	15: {"1996-01-01"},
	16: {"Brand#45", "MEDIUM POLISHED", "49", "14", "23", "45", "19", "3", "36", "9"},
	17: {"Brand#23", "MED BOX"},
	18: {"300"},
	19: {"Brand#12", "Brand#23", "Brand#34", "1", "10", "20"},
	20: {"forest", "1994-01-01", "CANADA"},
	21: {"SAUDI ARABIA"},
	22: {"13", "31", "23", "29", "30", "18", "17"},
}

// q11Fraction is FRACTION of Q11: 0.0001/SF under the spec's rule (printed as qgen does, with
// "%11.10f"), else 0.0001.
func q11Fraction(sf float64, scaled bool) string {
	if !scaled || sf <= 0 {
		return "0.0001"
	}
	return strconv.FormatFloat(0.0001/sf, 'f', 10, 64)
}

// ValidationParams returns the validation parameters of clause 2.4.N.4 for query q (those the
// reference answers were computed with). q11Scaled chooses Q11's FRACTION rule (see Params).
func ValidationParams(q int, sf float64, q11Scaled bool) Params {
	p := Params{Query: q, Q11Scaled: q11Scaled, Validation: true}
	if q < 1 || q > Count {
		return p
	}
	p.Values = append([]string(nil), validation[q]...)
	if q == 11 {
		p.Values[1] = q11Fraction(sf, q11Scaled)
	}
	return p
}

// The value lists of clause 4.2.2.13 and 4.2.3 that the parameters are drawn from (the same
// lists as dbgen's dists.dss).
var (
	regionNames = []string{"AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"}
	// nationNames in N_NATIONKEY order, with nationRegion their N_REGIONKEY.
	nationNames = []string{"ALGERIA", "ARGENTINA", "BRAZIL", "CANADA", "EGYPT", "ETHIOPIA",
		"FRANCE", "GERMANY", "INDIA", "INDONESIA", "IRAN", "IRAQ", "JAPAN", "JORDAN", "KENYA",
		"MOROCCO", "MOZAMBIQUE", "PERU", "CHINA", "ROMANIA", "SAUDI ARABIA", "VIETNAM", "RUSSIA",
		"UNITED KINGDOM", "UNITED STATES"}
	nationRegion = []int{0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1}
	segments     = []string{"AUTOMOBILE", "BUILDING", "FURNITURE", "HOUSEHOLD", "MACHINERY"}
	typeS1       = []string{"STANDARD", "SMALL", "MEDIUM", "LARGE", "ECONOMY", "PROMO"}
	typeS2       = []string{"ANODIZED", "BURNISHED", "PLATED", "POLISHED", "BRUSHED"}
	typeS3       = []string{"TIN", "NICKEL", "BRASS", "STEEL", "COPPER"}
	containerS1  = []string{"SM", "LG", "MED", "JUMBO", "WRAP"}
	containerS2  = []string{"CASE", "BOX", "BAG", "JAR", "PACK", "PKG", "CAN", "DRUM"}
	shipModes    = []string{"REG AIR", "AIR", "RAIL", "TRUCK", "MAIL", "FOB", "SHIP"}
	// colors are the words P_NAME is made of.
	colors = []string{"almond", "antique", "aquamarine", "azure", "beige", "bisque", "black",
		"blanched", "blue", "blush", "brown", "burlywood", "burnished", "chartreuse", "chiffon",
		"chocolate", "coral", "cornflower", "cornsilk", "cream", "cyan", "dark", "deep", "dim",
		"dodger", "drab", "firebrick", "floral", "forest", "frosted", "gainsboro", "ghost",
		"goldenrod", "green", "grey", "honeydew", "hot", "indian", "ivory", "khaki", "lace",
		"lavender", "lawn", "lemon", "light", "lime", "linen", "magenta", "maroon", "medium",
		"metallic", "midnight", "mint", "misty", "moccasin", "navajo", "navy", "olive", "orange",
		"orchid", "pale", "papaya", "peach", "peru", "pink", "plum", "powder", "puff", "purple",
		"red", "rose", "rosy", "royal", "saddle", "salmon", "sandy", "seashell", "sienna", "sky",
		"slate", "smoke", "snow", "spring", "steel", "tan", "thistle", "tomato", "turquoise",
		"violet", "wheat", "white", "yellow"}
	q13Word1 = []string{"special", "pending", "unusual", "express"}
	q13Word2 = []string{"packages", "requests", "accounts", "deposits"}
)

// RandomParams draws the substitution parameters of query q as clause 2.4.N.3 defines them
// ("randomly selected" means uniformly, clause 2.1.3). They are a pure function of (seed, stream,
// q): stream s draws from seed+s, the way the spec seeds the power test with seed0 and throughput
// stream s with seed0+s, and each query has its own generator, so the order in which a stream
// runs its queries does not change their parameters. sf and q11Scaled give Q11's FRACTION.
func RandomParams(q int, seed uint64, stream int, sf float64, q11Scaled bool) Params {
	p := Params{Query: q, Stream: stream, Q11Scaled: q11Scaled}
	if q < 1 || q > Count {
		return p
	}
	// PCG states that differ in a few bits give correlated first draws, so the words are mixed.
	k := splitmix64(seed + uint64(stream))
	r := rand.New(rand.NewPCG(splitmix64(k^uint64(q)), splitmix64(k+0x7470636851000000+uint64(q))))
	pick := func(list []string) string { return list[r.IntN(len(list))] }
	between := func(lo, hi int) int { return lo + r.IntN(hi-lo+1) }
	itoa := strconv.Itoa
	// month returns the first day of month m counted from January 1993 (m = 0).
	month := func(m int) string { return fmt.Sprintf("%d-%02d-01", 1993+m/12, m%12+1) }
	jan1 := func() string { return fmt.Sprintf("%d-01-01", between(1993, 1997)) }
	brand := func() string { return fmt.Sprintf("Brand#%d%d", between(1, 5), between(1, 5)) }
	var v []string
	switch q {
	case 1:
		v = []string{itoa(between(60, 120))}
	case 2:
		v = []string{itoa(between(1, 50)), pick(typeS3), pick(regionNames)}
	case 3:
		v = []string{pick(segments), fmt.Sprintf("1995-03-%02d", between(1, 31))}
	case 4, 15:
		// January 1993 .. October 1997.
		v = []string{month(between(0, 57))}
	case 5:
		v = []string{pick(regionNames), jan1()}
	case 6:
		v = []string{jan1(), fmt.Sprintf("0.%02d", between(2, 9)), itoa(between(24, 25))}
	case 7:
		a := r.IntN(len(nationNames))
		b := r.IntN(len(nationNames) - 1)
		if b >= a {
			b++
		}
		v = []string{nationNames[a], nationNames[b]}
	case 8:
		n := r.IntN(len(nationNames))
		v = []string{nationNames[n], regionNames[nationRegion[n]], pick(typeS1) + " " + pick(typeS2) + " " + pick(typeS3)}
	case 9:
		v = []string{pick(colors)}
	case 10:
		// February 1993 .. January 1995.
		v = []string{month(between(1, 24))}
	case 11:
		v = []string{pick(nationNames), q11Fraction(sf, q11Scaled)}
	case 12:
		a := r.IntN(len(shipModes))
		b := r.IntN(len(shipModes) - 1)
		if b >= a {
			b++
		}
		v = []string{shipModes[a], shipModes[b], jan1()}
	case 13:
		v = []string{pick(q13Word1), pick(q13Word2)}
	case 14:
		// A month of a year in 1993 .. 1997.
		v = []string{month(between(0, 59))}
	case 16:
		v = []string{brand(), pick(typeS1) + " " + pick(typeS2)}
		for _, i := range r.Perm(50)[:8] {
			v = append(v, itoa(i+1))
		}
	case 17:
		v = []string{brand(), pick(containerS1) + " " + pick(containerS2)}
	case 18:
		v = []string{itoa(between(312, 315))}
	case 19:
		v = []string{brand(), brand(), brand(), itoa(between(1, 10)), itoa(between(10, 20)), itoa(between(20, 30))}
	case 20:
		v = []string{pick(colors), jan1(), pick(nationNames)}
	case 21:
		v = []string{pick(nationNames)}
	case 22:
		// Country codes are 10 + N_NATIONKEY (clause 4.2.2.9): seven different ones.
		for _, i := range r.Perm(25)[:7] {
			v = append(v, itoa(10+i))
		}
	}
	p.Values = v
	return p
}

// splitmix64 is the finalizer of SplitMix64: a bijection that spreads every input bit over the
// output.
func splitmix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// permutation is the query order of each stream: row 0 is the power test's stream, rows 1..40
// the throughput streams; stream s uses row s mod 41. Transcribed from TPC-H 2.17.3 Appendix A
// ("Ordered Sets"), identical to the table in dbgen's permute.h used by qgen -p.
var permutation = [41][Count]int{
	{14, 2, 9, 20, 6, 17, 18, 8, 21, 13, 3, 22, 16, 4, 11, 15, 1, 10, 19, 5, 7, 12},
	{21, 3, 18, 5, 11, 7, 6, 20, 17, 12, 16, 15, 13, 10, 2, 8, 14, 19, 9, 22, 1, 4},
	{6, 17, 14, 16, 19, 10, 9, 2, 15, 8, 5, 22, 12, 7, 13, 18, 1, 4, 20, 3, 11, 21},
	{8, 5, 4, 6, 17, 7, 1, 18, 22, 14, 9, 10, 15, 11, 20, 2, 21, 19, 13, 16, 12, 3},
	{5, 21, 14, 19, 15, 17, 12, 6, 4, 9, 8, 16, 11, 2, 10, 18, 1, 13, 7, 22, 3, 20},
	{21, 15, 4, 6, 7, 16, 19, 18, 14, 22, 11, 13, 3, 1, 2, 5, 8, 20, 12, 17, 10, 9},
	{10, 3, 15, 13, 6, 8, 9, 7, 4, 11, 22, 18, 12, 1, 5, 16, 2, 14, 19, 20, 17, 21},
	{18, 8, 20, 21, 2, 4, 22, 17, 1, 11, 9, 19, 3, 13, 5, 7, 10, 16, 6, 14, 15, 12},
	{19, 1, 15, 17, 5, 8, 9, 12, 14, 7, 4, 3, 20, 16, 6, 22, 10, 13, 2, 21, 18, 11},
	{8, 13, 2, 20, 17, 3, 6, 21, 18, 11, 19, 10, 15, 4, 22, 1, 7, 12, 9, 14, 5, 16},
	{6, 15, 18, 17, 12, 1, 7, 2, 22, 13, 21, 10, 14, 9, 3, 16, 20, 19, 11, 4, 8, 5},
	{15, 14, 18, 17, 10, 20, 16, 11, 1, 8, 4, 22, 5, 12, 3, 9, 21, 2, 13, 6, 19, 7},
	{1, 7, 16, 17, 18, 22, 12, 6, 8, 9, 11, 4, 2, 5, 20, 21, 13, 10, 19, 3, 14, 15},
	{21, 17, 7, 3, 1, 10, 12, 22, 9, 16, 6, 11, 2, 4, 5, 14, 8, 20, 13, 18, 15, 19},
	{2, 9, 5, 4, 18, 1, 20, 15, 16, 17, 7, 21, 13, 14, 19, 8, 22, 11, 10, 3, 12, 6},
	{16, 9, 17, 8, 14, 11, 10, 12, 6, 21, 7, 3, 15, 5, 22, 20, 1, 13, 19, 2, 4, 18},
	{1, 3, 6, 5, 2, 16, 14, 22, 17, 20, 4, 9, 10, 11, 15, 8, 12, 19, 18, 13, 7, 21},
	{3, 16, 5, 11, 21, 9, 2, 15, 10, 18, 17, 7, 8, 19, 14, 13, 1, 4, 22, 20, 6, 12},
	{14, 4, 13, 5, 21, 11, 8, 6, 3, 17, 2, 20, 1, 19, 10, 9, 12, 18, 15, 7, 22, 16},
	{4, 12, 22, 14, 5, 15, 16, 2, 8, 10, 17, 9, 21, 7, 3, 6, 13, 18, 11, 20, 19, 1},
	{16, 15, 14, 13, 4, 22, 18, 19, 7, 1, 12, 17, 5, 10, 20, 3, 9, 21, 11, 2, 6, 8},
	{20, 14, 21, 12, 15, 17, 4, 19, 13, 10, 11, 1, 16, 5, 18, 7, 8, 22, 9, 6, 3, 2},
	{16, 14, 13, 2, 21, 10, 11, 4, 1, 22, 18, 12, 19, 5, 7, 8, 6, 3, 15, 20, 9, 17},
	{18, 15, 9, 14, 12, 2, 8, 11, 22, 21, 16, 1, 6, 17, 5, 10, 19, 4, 20, 13, 3, 7},
	{7, 3, 10, 14, 13, 21, 18, 6, 20, 4, 9, 8, 22, 15, 2, 1, 5, 12, 19, 17, 11, 16},
	{18, 1, 13, 7, 16, 10, 14, 2, 19, 5, 21, 11, 22, 15, 8, 17, 20, 3, 4, 12, 6, 9},
	{13, 2, 22, 5, 11, 21, 20, 14, 7, 10, 4, 9, 19, 18, 6, 3, 1, 8, 15, 12, 17, 16},
	{14, 17, 21, 8, 2, 9, 6, 4, 5, 13, 22, 7, 15, 3, 1, 18, 16, 11, 10, 12, 20, 19},
	{10, 22, 1, 12, 13, 18, 21, 20, 2, 14, 16, 7, 15, 3, 4, 17, 5, 19, 6, 8, 9, 11},
	{10, 8, 9, 18, 12, 6, 1, 5, 20, 11, 17, 22, 16, 3, 13, 2, 15, 21, 14, 19, 7, 4},
	{7, 17, 22, 5, 3, 10, 13, 18, 9, 1, 14, 15, 21, 19, 16, 12, 8, 6, 11, 20, 4, 2},
	{2, 9, 21, 3, 4, 7, 1, 11, 16, 5, 20, 19, 18, 8, 17, 13, 10, 12, 15, 6, 14, 22},
	{15, 12, 8, 4, 22, 13, 16, 17, 18, 3, 7, 5, 6, 1, 9, 11, 21, 10, 14, 20, 19, 2},
	{15, 16, 2, 11, 17, 7, 5, 14, 20, 4, 21, 3, 10, 9, 12, 8, 13, 6, 18, 19, 22, 1},
	{1, 13, 11, 3, 4, 21, 6, 14, 15, 22, 18, 9, 7, 5, 10, 20, 12, 16, 17, 8, 19, 2},
	{14, 17, 22, 20, 8, 16, 5, 10, 1, 13, 2, 21, 12, 9, 4, 18, 3, 7, 6, 19, 15, 11},
	{9, 17, 7, 4, 5, 13, 21, 18, 11, 3, 22, 1, 6, 16, 20, 14, 15, 10, 8, 2, 12, 19},
	{13, 14, 5, 22, 19, 11, 9, 6, 18, 15, 8, 10, 7, 4, 17, 16, 3, 1, 12, 2, 21, 20},
	{20, 5, 4, 14, 11, 1, 6, 16, 8, 22, 7, 3, 2, 12, 21, 19, 17, 13, 10, 15, 18, 9},
	{3, 7, 14, 15, 6, 5, 21, 20, 18, 10, 4, 16, 19, 1, 13, 9, 8, 17, 11, 12, 22, 2},
	{13, 15, 17, 1, 22, 11, 3, 4, 7, 20, 14, 21, 9, 8, 2, 18, 16, 6, 10, 12, 5, 19},
}

// StreamOrder returns the order in which stream runs the 22 queries: stream 0 is the power test,
// 1..40 the throughput streams (Appendix A); higher streams wrap around, as in qgen.
func StreamOrder(stream int) []int {
	if stream < 0 {
		stream = -stream
	}
	row := permutation[stream%len(permutation)]
	return append([]int(nil), row[:]...)
}
