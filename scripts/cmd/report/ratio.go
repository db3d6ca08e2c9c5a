package main

import (
	"cmp"
	"fmt"

	"golang.org/x/perf/benchmath"

	"example.com/userperf/scripts/internal/results"
)

// noisy is the widest confidence interval, as a share of the median, from
// which a ratio still says something: beyond it, the machine was too busy.
const noisy = 0.25

// ratio is the ratio subcommand, check.sh's verdict: how much faster the
// stage of result file NEW ran than OLD's at benchmark name, by benchstat's
// median and test: "2.3x faster than stage0-linear" or slower, then, when
// benchstat finds no significant difference, "(within the noise)" or, for a
// spread too wide to say anything, a warning.
func ratio(name string, paths []string) (string, error) {
	if name == "" || len(paths) != 2 {
		return "", fmt.Errorf("usage: report ratio -name BENCHMARK OLD.txt NEW.txt")
	}
	var samples [2]*benchmath.Sample
	var label string
	for i, p := range paths {
		f, err := results.Read(p)
		if err != nil {
			return "", err
		}
		v := f.Values(name, "sec/op")
		if len(v) == 0 {
			return "", fmt.Errorf("%s: no sec/op of %s", p, name)
		}
		samples[i], label = benchmath.NewSample(v, &benchmath.DefaultThresholds), cmp.Or(label, f.Name)
	}
	a, b := benchmath.AssumeNothing.Summary(samples[0], 0.95), benchmath.AssumeNothing.Summary(samples[1], 0.95)
	line := fmt.Sprintf("%.1fx faster than %s", a.Center/b.Center, label)
	if b.Center > a.Center {
		line = fmt.Sprintf("%.1fx slower than %s", b.Center/a.Center, label)
	}
	// A difference benchstat calls significant stands, however noisy the
	// run; one it cannot tell from chance is blamed on a busy machine when
	// the spread is wide, as then no real difference could have shown.
	switch c := benchmath.AssumeNothing.Compare(samples[0], samples[1]); {
	case c.P < c.Alpha:
	case max(spread(a), spread(b)) > noisy:
		line += fmt.Sprintf(" (too noisy to tell: ±%.0f%%; close other programs, then run again)", 100*max(spread(a), spread(b)))
	default:
		line += " (within the noise)"
	}
	return line, nil
}

// spread is how far the 95% confidence interval reaches from the median,
// as a share of it: what benchstat prints after ±.
func spread(s benchmath.Summary) float64 { return max(s.Hi-s.Center, s.Center-s.Lo) / s.Center }
