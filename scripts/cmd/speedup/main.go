// Command speedup says how many times faster the stage of one result file
// is than the stage of another, at one benchmark, with benchstat's own
// statistics (golang.org/x/perf/benchmath, its median and its test):
//
//	speedup -name ListByRole/users=10000/matches=100 OLD.txt NEW.txt
//
// prints OLD's median sec/op over NEW's (2.31: NEW is 2.31 times as fast),
// then "~" if benchstat would call the difference noise, as its tables do.
package main

import (
	"flag"
	"fmt"
	"os"

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
	var samples [2]*benchmath.Sample
	for i, file := range files {
		values, err := secPerOp(file, name)
		if err != nil {
			return "", err
		}
		samples[i] = benchmath.NewSample(values, &benchmath.DefaultThresholds)
	}
	median := func(s *benchmath.Sample) float64 { return benchmath.AssumeNothing.Summary(s, 0.95).Center }
	line := fmt.Sprintf("%.4g", median(samples[0])/median(samples[1]))
	if c := benchmath.AssumeNothing.Compare(samples[0], samples[1]); c.P >= c.Alpha {
		line += " ~"
	}
	return line, nil
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
