package results

import (
	"fmt"

	"golang.org/x/perf/benchmath"
)

// noisy is the widest confidence interval, as a share of the median, from
// which a ratio still says something: beyond it, the machine was too busy.
const noisy = 0.25

// Ratio is the check's verdict on speed: how much faster the stage of result
// file newPath ran than oldPath's at benchmark bench, by benchstat's median
// and test: "2.3x faster than stage0-linear" or slower, "as fast as" when
// benchstat cannot tell them apart, or, for a spread too wide to say
// anything, the ratio and a warning.
func Ratio(bench, oldPath, newPath string) (string, error) {
	var samples [2]*benchmath.Sample
	var label string
	for i, p := range []string{oldPath, newPath} {
		f, err := Read(p)
		if err != nil {
			return "", err
		}
		v := f.Values(bench, "sec/op")
		if len(v) == 0 {
			return "", fmt.Errorf("%s: no sec/op of %s", p, bench)
		}
		samples[i] = benchmath.NewSample(v, &benchmath.DefaultThresholds)
		if i == 0 {
			label = f.Name
		}
	}
	a, b := benchmath.AssumeNothing.Summary(samples[0], 0.95), benchmath.AssumeNothing.Summary(samples[1], 0.95)
	// Two decimals where one would print a significant difference as 1.0x.
	times, digits := a.Center/b.Center, 1
	line := "%.*fx faster than %s"
	if b.Center > a.Center {
		times, line = b.Center/a.Center, "%.*fx slower than %s"
	}
	if times < 1.05 {
		digits = 2
	}
	// A difference benchstat calls significant stands, however noisy the
	// run; one it cannot tell from chance is blamed on a busy machine when
	// the spread is wide, as then no real difference could have shown.
	switch c, wide := benchmath.AssumeNothing.Compare(samples[0], samples[1]), max(spread(a), spread(b)); {
	case c.P < c.Alpha:
		return fmt.Sprintf(line, digits, times, label), nil
	case wide > noisy:
		return fmt.Sprintf(line+" (too noisy to tell: ±%.0f%%; close other programs, then run again)", digits, times, label, 100*wide), nil
	}
	return fmt.Sprintf("as fast as %s (within the noise)", label), nil
}

// spread is how far the 95% confidence interval reaches from the median,
// as a share of it: what benchstat prints after ±.
func spread(s benchmath.Summary) float64 { return max(s.Hi-s.Center, s.Center-s.Lo) / s.Center }
