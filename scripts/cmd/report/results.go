package main

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"
)

// resultSet is one directory of results from compare.sh or load.sh: a Go
// benchmark file per stage, each headed by "key: value" lines that say
// where, when and by which command it was measured.
type resultSet struct {
	dir    string
	stages []*stageResult // in stage order, the floor last
}

// stageResult is one stage's benchmark file.
type stageResult struct {
	name   string // the file name without .txt: stage0-linear, floor
	file   string
	config map[string]string // the file's "key: value" lines
	// samples holds every measurement, by benchmark and (tidied) unit:
	// {"ListByRole/users=10000/matches=100", "sec/op"}.
	samples map[measurement][]float64
}

// measurement names one benchmark (without its -GOMAXPROCS suffix and
// the Benchmark prefix, as benchfmt reads it) and one unit.
type measurement struct{ bench, unit string }

// notStages are the files of a results directory that hold no stage.
var notStages = map[string]bool{"machine.txt": true, "benchstat.txt": true}

// readResultSet reads every stage file in dir.
func readResultSet(dir string) (*resultSet, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.txt"))
	if err != nil {
		return nil, err
	}
	rs := &resultSet{dir: dir}
	for _, f := range files {
		if notStages[filepath.Base(f)] {
			continue
		}
		s, err := readStage(f)
		if err != nil {
			return nil, err
		}
		rs.stages = append(rs.stages, s)
	}
	if len(rs.stages) == 0 {
		return nil, fmt.Errorf("%s: no stage results (*.txt)", dir)
	}
	slices.SortFunc(rs.stages, func(a, b *stageResult) int { return compareStages(a.name, b.name) })
	return rs, nil
}

// readStage parses one Go benchmark file with benchfmt.
func readStage(file string) (*stageResult, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	s := &stageResult{
		name:    strings.TrimSuffix(filepath.Base(file), ".txt"),
		file:    file,
		config:  map[string]string{},
		samples: map[measurement][]float64{},
	}
	r := benchfmt.NewReader(f, file)
	for r.Scan() {
		switch rec := r.Result().(type) {
		case *benchfmt.SyntaxError:
			return nil, rec
		case *benchfmt.Result:
			for _, c := range rec.Config {
				if c.File {
					s.config[c.Key] = strings.TrimSpace(string(c.Value))
				}
			}
			bench := benchName(rec.Name)
			for _, v := range rec.Values {
				key := measurement{bench, v.Unit}
				s.samples[key] = append(s.samples[key], v.Value)
			}
		}
	}
	return s, r.Err()
}

// benchName is a benchmark's name without its -GOMAXPROCS suffix, so that
// the same benchmark has the same name on any machine.
func benchName(n benchfmt.Name) string {
	base, parts := n.Parts()
	name := string(base)
	for _, p := range parts {
		if p[0] == '/' {
			name += string(p)
		}
	}
	return name
}

// nameKeys splits a benchmark name into its base and its key=value
// sub-benchmark parts: ListByRole, {users: 10000, matches: 100}.
func nameKeys(bench string) (base string, keys map[string]string) {
	b, parts := benchfmt.Name(bench).Parts()
	keys = map[string]string{}
	for _, p := range parts {
		if k, v, ok := strings.Cut(string(p[1:]), "="); ok && p[0] == '/' {
			keys[k] = v
		}
	}
	return string(b), keys
}

// median is the median of the stage's samples of bench in unit.
func (s *stageResult) median(bench, unit string) (float64, bool) {
	v := slices.Clone(s.samples[measurement{bench, unit}])
	if len(v) == 0 {
		return 0, false
	}
	slices.Sort(v)
	if len(v)%2 == 1 {
		return v[len(v)/2], true
	}
	return (v[len(v)/2-1] + v[len(v)/2]) / 2, true
}

// runs is how many samples the stage has of bench in unit.
func (s *stageResult) runs(bench, unit string) int {
	return len(s.samples[measurement{bench, unit}])
}

// stageNumber is N in stageN-name, or -1.
func stageNumber(name string) int {
	rest, ok := strings.CutPrefix(name, "stage")
	if !ok {
		return -1
	}
	digits := rest[:len(rest)-len(strings.TrimLeft(rest, "0123456789"))]
	n, err := strconv.Atoi(digits)
	if err != nil {
		return -1
	}
	return n
}

// compareStages orders stages by number (stage2 before stage10), then
// anything else by name, and the floor last: it is a yardstick, not a step.
func compareStages(a, b string) int {
	rank := func(name string) int {
		switch {
		case name == "floor":
			return 2
		case stageNumber(name) >= 0:
			return 0
		}
		return 1
	}
	return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(stageNumber(a), stageNumber(b)), cmp.Compare(a, b))
}

// machine says where, when and by which command a set of results was
// measured, from the header lines of its first stage file.
func (rs *resultSet) machine() string {
	c := rs.stages[0].config
	get := func(key string) string { return cmp.Or(c[key], "unknown") }
	return fmt.Sprintf("%s, %s cores, %s, %s, by `%s`",
		cmp.Or(c["machine-cpu"], c["cpu"], "unknown"), get("machine-cores"), get("go-version"), get("date"), get("command"))
}

// stage is the result of the stage with name, or nil.
func (rs *resultSet) stage(name string) *stageResult {
	for _, s := range rs.stages {
		if s.name == name {
			return s
		}
	}
	return nil
}
