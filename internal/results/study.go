package results

import (
	"encoding/json"
	"fmt"
	"time"
)

// KindStudy is a study's document kind.
const KindStudy = "study"

// Study is a tuning experiment: the same workload run for every combination of its factors
// (server settings, CPU bindings) at each VU count, each step possibly repeated, possibly with
// settings changed live inside each run's window. docs/studies.md defines every field.
type Study struct {
	Format      int       `json:"format"`
	Kind        string    `json:"kind"` // "study"
	ID          string    `json:"id,omitempty"`
	Name        string    `json:"name"`
	Cairn       Cairn     `json:"cairn"`
	Workload    string    `json:"workload"`
	MainTxn     string    `json:"main_transaction"`
	StartedAt   time.Time `json:"started_at"`
	Interrupted bool      `json:"interrupted"`
	Target      Target    `json:"target"`
	Host        *Host     `json:"host,omitempty"`
	Order       string    `json:"order"`
	VUs         []int     `json:"vus"`
	Repeat      int       `json:"repeat"`
	// Factors are the varied settings and CPU lists, each with its levels in the file's order.
	Factors []Factor `json:"factors"`
	// Original holds every setting the study changes, as the server had it before the first
	// change: what the study restores.
	Original []SettingValue `json:"original_settings"`
	// Restored says whether every original setting has been put back and read back equal: false
	// while the study runs, and after a kill until 'cairn study restore' has run.
	Restored bool `json:"restored"`
	// RestoredAt is when they were read back equal, RestoredBy by what: "study" (at its end, on an
	// error or Ctrl-C), "cairn study restore" or "cairn restore" (after a crash).
	RestoredAt *time.Time `json:"restored_at,omitempty"`
	RestoredBy string     `json:"restored_by,omitempty"`
	// EndedAt is when the study ended (every run, an error or Ctrl-C) and tried its restore; absent
	// while it runs, and for good when it was killed.
	EndedAt  *time.Time       `json:"ended_at,omitempty"`
	Schedule []ScheduledSet   `json:"schedule,omitempty"`
	Config   any              `json:"config"` // the study file's keys, its password a ${CAIRN_PASSWORD}
	Headline string           `json:"headline"`
	Cases    []*StudyCase     `json:"cases"`
	Steps    []StudyStepOrder `json:"steps"` // the runs in the order they ran
	// HostNotes are what the plan said of this host against the study file: where its CPU lists
	// lie (NUMA nodes), whether the host can vary SMT, and each of the original host's settings
	// (the file's host:) as reproduced here or not.
	HostNotes []string `json:"host_notes,omitempty"`
}

// Factor is one varied setting ("innodb_spin_wait_delay") or CPU list ("client-cpus").
type Factor struct {
	Name   string   `json:"name"`
	Levels []string `json:"levels"`
}

// SettingValue is one setting's value.
type SettingValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// ScheduledSet is a live change planned at At seconds into each run's window.
type ScheduledSet struct {
	AtSec float64        `json:"at_seconds"`
	Set   []SettingValue `json:"set"`
	// VU > 0: the VUs running from then on (a load change).
	VU int `json:"vu,omitempty"`
}

// StudyCase is one combination of the factors: its levels, the values the server read back once
// they were applied, and a profile of its runs over the VU counts.
type StudyCase struct {
	Label      string         `json:"label"`
	Levels     []SettingValue `json:"levels"` // factor name → level, in the factors' order
	Applied    []SettingValue `json:"applied,omitempty"`
	ClientCPUs string         `json:"client_cpus,omitempty"`
	ServerCPUs string         `json:"server_cpus,omitempty"`
	// ClientTopology and ServerTopology are what the lists cover on the host the study ran on.
	ClientTopology *CPUTopology `json:"client_topology,omitempty"`
	ServerTopology *CPUTopology `json:"server_topology,omitempty"`
	Profile        *Profile     `json:"profile"`
}

// StudyStepOrder is one run of the study, in running order: which case, VU count and repeat.
type StudyStepOrder struct {
	Case   int    `json:"case"`
	VU     int    `json:"vu"`
	Repeat int    `json:"repeat"`
	Result string `json:"result,omitempty"` // the run's id in the results store
}

// StudyRef places a run in its study.
type StudyRef struct {
	Case   int `json:"case"`
	Repeat int `json:"repeat"`
	Step   int `json:"step"` // its position in the running order
}

// SettingChange is a live change as it was made inside a run's window.
type SettingChange struct {
	AtSec    float64 `json:"at_seconds"` // when it took effect, in seconds from the window's start
	T        float64 `json:"t"`          // the same instant on the time series' clock (from the run's start)
	Planned  float64 `json:"planned_seconds"`
	Name     string  `json:"name"`
	Value    string  `json:"value"`
	ReadBack string  `json:"read_back"`
}

// StudyFormat is the study document's own format: 3 records ended_at and a restore that was read
// back (restored_at, restored_by). A study stored by an older cairn (format 2) recorded neither:
// its restored flag was set even when the study was killed.
const StudyFormat = 3

// Legacy says whether the study was stored by a cairn that did not record its end.
func (s *Study) Legacy() bool { return s.Format < StudyFormat }

// Ended says whether the study reached its end (every run, an error or Ctrl-C).
func (s *Study) Ended() bool { return s.EndedAt != nil || s.Legacy() }

// MarkRestored records that every original setting was read back equal at now, by by.
func (s *Study) MarkRestored(now time.Time, by string) {
	now = now.UTC()
	s.Restored, s.RestoredAt, s.RestoredBy = true, &now, by
}

// State says in a few words where the study stands: "ended", "interrupted", or for a study
// without an end "not ended: running, or killed before its end".
func (s *Study) State() string {
	switch {
	case s.Legacy():
		return "stored by an older cairn, which did not record whether the study ended"
	case s.EndedAt == nil:
		return "not ended: running, or killed before its end"
	case s.Interrupted:
		return "interrupted"
	}
	return "ended"
}

// RestoreState says what became of the settings the study changed, for people.
func (s *Study) RestoreState() string {
	switch {
	case s.Legacy():
		return "not known: an older cairn stored this study and did not read its settings back after a kill ('cairn study restore --db URL' checks)"
	case s.Restored && s.RestoredAt != nil:
		return fmt.Sprintf("restored and read back at %s by %s", s.RestoredAt.Format("2006-01-02 15:04:05 MST"), s.RestoredBy)
	case s.Restored:
		return "restored and read back"
	case s.EndedAt == nil:
		return "NOT restored yet: the study runs, or was killed; after a kill 'cairn study restore --db URL' puts them back"
	}
	return "NOT all restored: run 'cairn study restore --db URL'"
}

// Measured says whether any run of the study measured its headline.
func (s *Study) Measured() bool {
	for _, d := range s.Runs() {
		if _, _, ok := d.Headline(); ok {
			return true
		}
	}
	return false
}

// Summarize summarizes every case's profile; the study's headline is the first measured case's.
func (s *Study) Summarize() {
	for _, c := range s.Cases {
		c.Profile.Summarize()
		if s.Headline == "" {
			s.Headline = c.Profile.Headline
		}
		if s.MainTxn == "" {
			s.MainTxn = c.Profile.MainTxn
		}
	}
}

// Place puts a run loaded from the store into its case's step.
func (s *Study) Place(d *Document) {
	if d.Study == nil || d.Study.Case < 0 || d.Study.Case >= len(s.Cases) {
		return
	}
	p := s.Cases[d.Study.Case].Profile
	st := p.StepAt(d.VU)
	if st == nil {
		st = &Step{VU: d.VU}
		p.Steps = append(p.Steps, st)
	}
	st.Runs = append(st.Runs, d)
}

// Runs are all the study's runs, in running order.
func (s *Study) Runs() []*Document {
	var out []*Document
	for _, c := range s.Cases {
		for _, st := range c.Profile.Steps {
			out = append(out, st.Runs...)
		}
	}
	sortByStep(out)
	return out
}

func sortByStep(ds []*Document) {
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && stepOf(ds[j]) < stepOf(ds[j-1]); j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

func stepOf(d *Document) int {
	if d.Study == nil {
		return 0
	}
	return d.Study.Step
}

// Stripped is the study as its store row keeps it: the runs are rows of their own.
func (s *Study) Stripped() *Study {
	c := *s
	c.Cases = make([]*StudyCase, len(s.Cases))
	for i, sc := range s.Cases {
		cc := *sc
		cc.Profile = StripRuns(sc.Profile)
		c.Cases[i] = &cc
	}
	return &c
}

// UnmarshalJSON reads a study, its config with exact numbers.
func (s *Study) UnmarshalJSON(b []byte) error {
	type plain Study
	var aux struct {
		*plain
		Config json.RawMessage `json:"config"`
	}
	aux.plain = (*plain)(s)
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	s.Config = decodeConfig(aux.Config)
	return nil
}

// StripRuns is the profile as its store row keeps it: its steps' runs are rows of their own.
func StripRuns(p *Profile) *Profile {
	c := *p
	c.Steps = make([]*Step, len(p.Steps))
	for i, st := range p.Steps {
		c.Steps[i] = &Step{VU: st.VU, Summary: st.Summary}
	}
	return &c
}
