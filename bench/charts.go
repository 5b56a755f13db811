package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"time"

	"github.com/auxilia/sandboxes/bench/internal/svgchart"
)

// Colours: ours warm, the floor cool, so that every chart reads alike.
const (
	oursColour   = "#d9480f"
	floorColour  = "#1c7ed6"
	secondColour = "#2f9e44"
	// A second floor's line beside a yardstick drawn in floorColour.
	secondFloorColour = "#7048e8"
)

// The percentile axis stretches the tail: position -log10(1-p) puts p50,
// p90, p99 and p99.9 at even steps, where the differences that matter are.
const tailDecades = 3

var percentileTicks = []svgchart.Tick{{At: 0, Label: "p0"}, {At: math.Log10(2), Label: "p50"},
	{At: 1, Label: "p90"}, {At: 2, Label: "p99"}, {At: 3, Label: "p99.9"}}

// percentileLine is a latency distribution, as latency by percentile.
func percentileLine(name, colour string, s series) svgchart.Line {
	l := svgchart.Line{Name: name, Color: colour}
	if s.requests() == 0 {
		return l
	}
	for k := 0; k <= tailDecades*100; k++ {
		x := float64(k) / 100
		p := 1 - math.Pow(10, -x)
		l.Points = append(l.Points, svgchart.Point{X: x, Y: msFloat(s.quantile(p))})
	}
	return l
}

func percentileChart(title string, lines []svgchart.Line, rules ...svgchart.Rule) svgchart.Chart {
	return svgchart.Chart{Title: title, XLabel: "percentile (the tail stretched)", YLabel: "latency", YUnit: " ms",
		XMin: 0, XMax: tailDecades, XTicks: percentileTicks, Lines: lines, Rules: rules}
}

// completionChart shows how many runs of each burst had their answer by
// when, beside the floor no burst can beat.
func completionChart(title string, floor time.Duration, bursts ...completion) svgchart.Chart {
	xMax, yMax := msFloat(floor), 0
	lines := make([]svgchart.Line, len(bursts))
	for k, c := range bursts {
		xMax = max(xMax, msFloat(c.total))
		yMax = max(yMax, len(c.ends)+c.errors)
		l := svgchart.Line{Name: c.name, Color: c.colour}
		l.Points = append(l.Points, svgchart.Point{X: 0, Y: 0})
		for i, end := range c.ends {
			x := msFloat(end)
			l.Points = append(l.Points, svgchart.Point{X: x, Y: float64(i)}, svgchart.Point{X: x, Y: float64(i + 1)})
		}
		lines[k] = l
	}
	xMax *= 1.05
	step := niceTick(xMax / 6)
	var ticks []svgchart.Tick
	for x := 0.0; x <= xMax; x += step {
		label := fmt.Sprintf("%g ms", x)
		if xMax >= 2000 {
			label = fmt.Sprintf("%g s", x/1000)
		}
		ticks = append(ticks, svgchart.Tick{At: x, Label: label})
	}
	return svgchart.Chart{Title: title, XLabel: "time since the runs were sent", YLabel: "runs answered",
		XMin: 0, XMax: xMax, XTicks: ticks, YMax: float64(yMax), Lines: lines,
		Rules: []svgchart.Rule{{Vertical: true, At: msFloat(floor), Label: "provider's floor"}}}
}

// completion is a burst's line on a completionChart.
type completion struct {
	batch
	name, colour string
}

// niceTick rounds a step up to 1, 2 or 5 times a power of ten.
func niceTick(raw float64) float64 {
	if raw <= 0 {
		return 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5} {
		if raw <= m*pow {
			return m * pow
		}
	}
	return 10 * pow
}

func msFloat(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// writeChart writes c as dir/name and returns the path the report links.
func writeChart(dir, name string, c svgchart.Chart) (string, error) {
	if err := os.WriteFile(filepath.Join(dir, name), c.SVG(), 0o644); err != nil {
		return "", err
	}
	return filepath.Base(dir) + "/" + name, nil
}
