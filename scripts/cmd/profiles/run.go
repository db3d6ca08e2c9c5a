package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/google/pprof/profile"

	"example.com/userperf/scripts/internal/results"
)

// run is what profile.sh leaves in results/profile/<stage>/: bench.txt (the
// benchmark's output, headed by the machine it ran on), cpu.pprof and
// mem.pprof.
type run struct {
	stage     string
	benchmark string  // its name, as go test prints it without -GOMAXPROCS
	secPerOp  float64 // the benchmark's own measurement, for scale
	// config holds bench.txt's "key: value" lines: machine-cpu,
	// machine-cores, go-version, date, command, and go test's pkg.
	config   map[string]string
	cpu, mem *profile.Profile // normalized
}

// loadRun reads and normalizes the profiles in dir.
func loadRun(dir string) (*run, error) {
	r := &run{stage: filepath.Base(dir), config: map[string]string{}}
	if err := r.readBench(filepath.Join(dir, "bench.txt")); err != nil {
		return nil, err
	}
	n := normalizer{mainPkg: r.config["pkg"]}
	var err error
	if r.cpu, err = readProfile(filepath.Join(dir, "cpu.pprof"), n); err != nil {
		return nil, err
	}
	if r.mem, err = readProfile(filepath.Join(dir, "mem.pprof"), n); err != nil {
		return nil, err
	}
	return r, nil
}

// readBench reads the benchmark's result and the configuration it ran with.
func (r *run) readBench(name string) error {
	f, err := results.Read(name)
	if err != nil {
		return err
	}
	r.config = f.Config
	for _, m := range f.Measurements() {
		if m.Unit == "sec/op" {
			r.benchmark = "Benchmark" + m.Bench
			r.secPerOp, _ = f.Median(m.Bench, m.Unit)
		}
	}
	if r.benchmark == "" {
		return fmt.Errorf("%s: no benchmark result (did the benchmark run?)", name)
	}
	return nil
}

// readProfile parses a profile file and normalizes it.
func readProfile(name string, n normalizer) (*profile.Profile, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	p, err := profile.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return n.normalize(p), nil
}

// writeProfile writes p to name, creating or replacing it.
func writeProfile(name string, p *profile.Profile) (err error) {
	f, err := os.Create(name)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	return p.Write(f)
}
