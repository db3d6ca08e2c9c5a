// Command speedup says how much faster the stage of one result file ran
// than the stage of another, at one benchmark, with benchstat's own
// statistics (golang.org/x/perf/benchmath: its median and its test):
//
//	speedup -name ListByRole/users=10000/matches=100 stage0-linear=OLD.txt NEW.txt
//
// prints "2.3x faster than stage0-linear" (or "slower"), followed by
// "(within the noise)" when benchstat finds no significant difference, and
// by a warning when either side's spread is too wide to say anything.
// OLD's label is the part before "=", else the file's name.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
)

func main() {
	name := flag.String("name", "", "the benchmark, without its -GOMAXPROCS suffix")
	flag.Parse()
	line, err := speedup(*name, flag.Args())
	if err != nil {
		fmt.Fprintln(os.Stderr, "speedup:", err)
		os.Exit(2)
	}
	fmt.Println(line)
}

// speedup compares the sec/op of benchmark name in the two files.
func speedup(name string, files []string) (string, error) {
	if name == "" || len(files) != 2 {
		return "", fmt.Errorf("usage: speedup -name BENCHMARK OLD.txt NEW.txt")
	}
	label, _, labelled := strings.Cut(files[0], "=")
	var samples [2]*benchmath.Sample
	for i, file := range files {
		if _, path, ok := strings.Cut(file, "="); ok {
			file = path
		}
		if !labelled && i == 0 {
			label = strings.TrimSuffix(filepath.Base(file), ".txt")
		}
		values, err := secPerOp(file, name)
		if err != nil {
			return "", err
		}
		samples[i] = benchmath.NewSample(values, &benchmath.DefaultThresholds)
	}
	median := func(s *benchmath.Sample) float64 { return benchmath.AssumeNothing.Summary(s, 0.95).Center }
	line := fmt.Sprintf("%.1fx faster than %s", median(samples[0])/median(samples[1]), label)
	if ratio := median(samples[1]) / median(samples[0]); ratio > 1 {
		line = fmt.Sprintf("%.1fx slower than %s", ratio, label)
	}
	if c := benchmath.AssumeNothing.Compare(samples[0], samples[1]); c.P >= c.Alpha {
		line += " (within the noise)"
	}
	if spread := max(spread(samples[0]), spread(samples[1])); spread > noisy {
		line += fmt.Sprintf(" [too noisy to measure: ±%.0f%%; close other programs, then run again]", 100*spread)
	}
	return line, nil
}

// noisy is the widest confidence interval, as a share of the median, from
// which a ratio still says something: beyond it, the machine was too busy.
const noisy = 0.25

// spread is how far the 95% confidence interval of s reaches from its
// median, as a share of it: what benchstat prints after ±.
func spread(s *benchmath.Sample) float64 {
	sum := benchmath.AssumeNothing.Summary(s, 0.95)
	return max(sum.Hi-sum.Center, sum.Center-sum.Lo) / sum.Center
}

// secPerOp returns every sec/op of benchmark name in file.
func secPerOp(file, name string) ([]float64, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var values []float64
	for r := benchfmt.NewReader(f, file); r.Scan(); {
		if res, ok := r.Result().(*benchfmt.Result); ok && withoutProcs(res.Name) == name {
			if v, ok := res.Value("sec/op"); ok {
				values = append(values, v)
			}
		}
	}
	if len(values) == 0 {
		return nil, fmt.Errorf("%s: no sec/op of %s", file, name)
	}
	return values, nil
}

// withoutProcs is a benchmark's name without the -GOMAXPROCS suffix that
// go test adds (ListByRole/users=10000/matches=100-2).
func withoutProcs(n benchfmt.Name) string {
	base, parts := n.Parts()
	name := string(base)
	for _, p := range parts {
		if p[0] == '/' {
			name += string(p)
		}
	}
	return name
}
