// Package svgchart draws the bench report's line charts as standalone SVG:
// no scripts, no fonts to fetch, so they render anywhere an image does.
package svgchart

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Point is a point in data space.
type Point struct{ X, Y float64 }

// Line is one series.
type Line struct {
	Name   string
	Color  string // any SVG colour
	Dashed bool
	Points []Point
}

// Tick is a labelled position on an axis, in data space.
type Tick struct {
	At    float64
	Label string
}

// Rule is a reference line across the plot: a floor, a limit.
type Rule struct {
	Vertical bool // at X = At; otherwise at Y = At
	At       float64
	Label    string
}

// Chart is a line chart with a linear y axis starting at zero.
type Chart struct {
	Title          string
	XLabel, YLabel string
	XMin, XMax     float64
	XTicks         []Tick // where to label the x axis
	YMax           float64
	YUnit          string // appended to the y tick labels
	Lines          []Line
	Rules          []Rule
}

// Geometry of the drawing, in SVG units.
const (
	width, height                                  = 720, 380
	marginLeft, marginRight                        = 72, 24
	marginTop, marginBottom                        = 64, 56
	plotWidth                                      = width - marginLeft - marginRight
	plotHeight                                     = height - marginTop - marginBottom
	gridColour, axisColour, textColour, ruleColour = "#e9ecef", "#868e96", "#212529", "#495057"
)

// SVG renders the chart.
func (c Chart) SVG() []byte {
	yMax := c.YMax
	if yMax <= 0 {
		for _, l := range c.Lines {
			for _, p := range l.Points {
				yMax = math.Max(yMax, p.Y)
			}
		}
		for _, r := range c.Rules {
			if !r.Vertical {
				yMax = math.Max(yMax, r.At)
			}
		}
	}
	step := niceStep(yMax / 5)
	yMax = math.Max(step, math.Ceil(yMax*1.05/step)*step)
	xSpan := c.XMax - c.XMin
	if xSpan <= 0 {
		xSpan = 1
	}
	legend, rows := c.legend()
	top := marginTop + legendRow*(rows-1) // the plot, below the legend
	h := height + legendRow*(rows-1)
	px := func(x float64) float64 { return marginLeft + (x-c.XMin)/xSpan*plotWidth }
	py := func(y float64) float64 { return float64(top+plotHeight) - y/yMax*plotHeight }

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" width="%d" height="%d" font-family="system-ui, -apple-system, Segoe UI, Helvetica, Arial, sans-serif" font-size="12">`+"\n", width, h, width, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#ffffff"/>`+"\n", width, h)
	fmt.Fprintf(&b, `<text x="%d" y="24" font-size="15" font-weight="600" fill="%s">%s</text>`+"\n", marginLeft, textColour, esc(c.Title))

	// Grid and y axis labels.
	for y := 0.0; y <= yMax+step/2; y += step {
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s"/>`+"\n", marginLeft, py(y), width-marginRight, py(y), gridColour)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" text-anchor="end" fill="%s">%s%s</text>`+"\n", marginLeft-8, py(y)+4, axisColour, formatNumber(y), esc(c.YUnit))
	}
	for _, t := range c.XTicks {
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`+"\n", px(t.At), top, px(t.At), top+plotHeight, gridColour)
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle" fill="%s">%s</text>`+"\n", px(t.At), top+plotHeight+18, axisColour, esc(t.Label))
	}
	fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s"/>`+"\n", marginLeft, top+plotHeight, width-marginRight, top+plotHeight, axisColour)
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" fill="%s">%s</text>`+"\n", marginLeft+plotWidth/2, h-14, textColour, esc(c.XLabel))
	fmt.Fprintf(&b, `<text transform="translate(16 %d) rotate(-90)" text-anchor="middle" fill="%s">%s</text>`+"\n", top+plotHeight/2, textColour, esc(c.YLabel))

	for _, r := range c.Rules {
		if r.Vertical {
			x := px(r.At)
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s" stroke-dasharray="5 4"/>`+"\n", x, top, x, top+plotHeight, ruleColour)
			fmt.Fprintf(&b, `<text x="%.1f" y="%d" fill="%s">%s</text>`+"\n", x+4, top+12, ruleColour, esc(r.Label))
			continue
		}
		y := py(r.At)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" stroke="%s" stroke-dasharray="5 4"/>`+"\n", marginLeft, y, width-marginRight, y, ruleColour)
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" fill="%s">%s</text>`+"\n", marginLeft+6, y-5, ruleColour, esc(r.Label))
	}

	for _, l := range c.Lines {
		if len(l.Points) == 0 {
			continue
		}
		pts := make([]string, len(l.Points))
		for i, p := range l.Points {
			pts[i] = fmt.Sprintf("%.1f,%.1f", px(p.X), py(math.Min(p.Y, yMax)))
		}
		dash := ""
		if l.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="2" stroke-linejoin="round"%s points="%s"/>`+"\n", l.Color, dash, strings.Join(pts, " "))
	}

	for i, l := range c.Lines {
		x, y := legend[i].x, legend[i].y
		dash := ""
		if l.Dashed {
			dash = ` stroke-dasharray="6 4"`
		}
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"%s/>`+"\n", x, y-4, x+22, y-4, l.Color, dash)
		fmt.Fprintf(&b, `<text x="%d" y="%d" fill="%s">%s</text>`+"\n", x+28, y, textColour, esc(l.Name))
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// legendRow is the height of a row of the legend.
const legendRow = 18

// legendAt is where a line's entry in the legend begins.
type legendAt struct{ x, y int }

// legend places the lines' entries under the title, side by side, on as
// many rows as they need within the chart's width; the plot moves down a
// row for each row past the first.
func (c Chart) legend() ([]legendAt, int) {
	at := make([]legendAt, len(c.Lines))
	x, rows := marginLeft, 1
	for i, l := range c.Lines {
		w := 28 + 7*utf8.RuneCountInString(l.Name)
		if x > marginLeft && x+w > width-marginRight {
			x, rows = marginLeft, rows+1
		}
		at[i] = legendAt{x, 44 + legendRow*(rows-1)}
		x += w + 24
	}
	return at, rows
}

// niceStep rounds a raw step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) || math.IsInf(raw, 0) {
		return 1
	}
	pow := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if raw <= m*pow {
			return m * pow
		}
	}
	return 10 * pow
}

func formatNumber(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

func esc(s string) string { return html.EscapeString(s) }
