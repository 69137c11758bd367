package dbgen

import (
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

//go:embed dists.dss
var distsDSS string

// dist is one weighted list from dists.dss. weights are cumulative, as dbgen keeps them; pick maps
// each of the maxWeight equally likely draws to its value's index, so a pick is one lookup.
type dist struct {
	values  []string
	weights []int32
	pick    []int32
}

func (d *dist) random(r *rowRand) string {
	return d.values[d.pick[r.nextInt(0, int32(len(d.pick))-1)]]
}

func (d *dist) randomIndex(r *rowRand) int32 {
	return d.pick[r.nextInt(0, int32(len(d.pick))-1)]
}

type distributions struct {
	articles, adjectives, adverbs, auxiliaries, grammar, nounPhrase, verbPhrase *dist
	nouns, verbs, prepositions, terminators                                     *dist
	nations, regions, colors, types, containers, segments, priorities           *dist
	returnFlags, instructions, modes                                            *dist
}

var (
	distsOnce sync.Once
	dists     *distributions
)

func loadDists() *distributions {
	distsOnce.Do(func() {
		all, err := parseDists(distsDSS)
		if err != nil {
			panic(err) // the embedded file is part of the binary; a parse error is a build defect
		}
		get := func(name string) *dist {
			d, ok := all[name]
			if !ok {
				panic("dists.dss has no distribution " + name)
			}
			return d
		}
		dists = &distributions{
			articles: get("articles"), adjectives: get("adjectives"), adverbs: get("adverbs"),
			auxiliaries: get("auxillaries"), grammar: get("grammar"), nounPhrase: get("np"),
			verbPhrase: get("vp"), nouns: get("nouns"), verbs: get("verbs"),
			prepositions: get("prepositions"), terminators: get("terminators"),
			nations: get("nations"), regions: get("regions"), colors: get("colors"),
			types: get("p_types"), containers: get("p_cntr"), segments: get("msegmnt"),
			priorities: get("o_oprio"), returnFlags: get("rflag"), instructions: get("instruct"),
			modes: get("smode"),
		}
	})
	return dists
}

// parseDists reads dbgen's format: "BEGIN name", lines "value|weight" (a "count|N" line is
// informational), "END name"; '#' starts a comment line.
func parseDists(text string) (map[string]*dist, error) {
	out := map[string]*dist{}
	var cur *dist
	var name string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || line[0] == '#' {
			continue
		}
		if f := strings.Fields(line); len(f) == 2 && !strings.Contains(line, "|") {
			switch strings.ToLower(f[0]) {
			case "begin":
				cur, name = &dist{}, f[1]
				continue
			case "end":
				if cur == nil {
					return nil, fmt.Errorf("dists.dss: END %s without BEGIN", f[1])
				}
				cur.build()
				out[name] = cur
				cur = nil
				continue
			}
		}
		if cur == nil {
			continue
		}
		value, w, ok := strings.Cut(line, "|")
		if !ok {
			return nil, fmt.Errorf("dists.dss: %s: bad line %q", name, line)
		}
		weight, err := strconv.Atoi(strings.TrimSpace(w))
		if err != nil {
			return nil, fmt.Errorf("dists.dss: %s: bad weight in %q", name, line)
		}
		if strings.EqualFold(value, "count") {
			continue
		}
		cur.values = append(cur.values, value)
		cur.weights = append(cur.weights, int32(weight))
	}
	return out, nil
}

func (d *dist) build() {
	var run int32
	valid := true
	raw := append([]int32(nil), d.weights...)
	for i, w := range raw {
		run += w
		d.weights[i] = run
		valid = valid && w > 0
	}
	if !valid { // nations: the weights are region adjustments, not a distribution
		return
	}
	d.pick = make([]int32, 0, run)
	for i, w := range raw {
		for j := int32(0); j < w; j++ {
			d.pick = append(d.pick, int32(i))
		}
	}
}
