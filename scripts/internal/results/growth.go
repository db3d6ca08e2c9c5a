package results

import (
	"math/rand/v2"
	"slices"
)

// Growth is how many times longer other's samples take than base's: the ratio of their medians,
// and the largest it may be at the confidence level, the upper end of a percentile bootstrap of
// that ratio (each sample drawn again with replacement, Resamples times, from a fixed seed so that
// the same samples give the same bound). A ratio bounded so is a growth that the run can state:
// "at most 1.3x", even where benchstat's test cannot tell the two apart.
func Growth(base, other []float64, confidence float64) (ratio, atMost float64) {
	if len(base) == 0 || len(other) == 0 {
		return 0, 0
	}
	random := rand.New(rand.NewPCG(1, 2))
	draw := func(values, into []float64) float64 {
		for i := range into {
			into[i] = values[random.IntN(len(values))]
		}
		slices.Sort(into)
		return median(into)
	}
	a, b := make([]float64, len(base)), make([]float64, len(other))
	ratios := make([]float64, Resamples)
	for i := range ratios {
		ratios[i] = draw(other, b) / draw(base, a)
	}
	slices.Sort(ratios)
	return Median(other) / Median(base), ratios[min(len(ratios)-1, int(confidence*float64(len(ratios))))]
}

// Resamples is how many times Growth draws the samples again.
const Resamples = 10000

// median is the middle of sorted values, or the mean of the two middle ones.
func median(sorted []float64) float64 {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
