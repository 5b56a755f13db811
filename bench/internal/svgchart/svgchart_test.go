package svgchart

import (
	"bytes"
	"encoding/xml"
	"io"
	"strconv"
	"strings"
	"testing"
)

func TestSVGIsWellFormed(t *testing.T) {
	c := Chart{
		Title: "Latency <ours> & floor", XLabel: "percentile", YLabel: "ms", XMax: 3, YUnit: " ms",
		XTicks: []Tick{{0, "p0"}, {1, "p90"}, {3, "p99.9"}},
		Lines: []Line{
			{Name: "ours", Color: "#d9480f", Points: []Point{{0, 1}, {1, 2}, {3, 9}}},
			{Name: "floor", Color: "#1c7ed6", Dashed: true, Points: []Point{{0, 0.5}, {3, 4}}},
		},
		Rules: []Rule{{At: 5, Label: "limit"}, {Vertical: true, At: 2, Label: "p99"}},
	}
	out := c.SVG()
	dec := xml.NewDecoder(bytes.NewReader(out))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v\n%s", err, out)
		}
	}
	if strings.Contains(string(out), "NaN") {
		t.Fatalf("a coordinate is NaN:\n%s", out)
	}
}

func TestNiceStep(t *testing.T) {
	for raw, want := range map[float64]float64{0.3: 0.5, 1: 1, 1.2: 2, 4: 5, 7: 10, 23: 50, 0: 1} {
		if got := niceStep(raw); got != want {
			t.Errorf("niceStep(%v) = %v, want %v", raw, got, want)
		}
	}
}

func TestLegendWrapsWithinTheWidth(t *testing.T) {
	names := []string{"runs answered (ours)", "ours, 20 statements at once", "reachable floor (net/http + pgx)",
		"reachable floor, calling the provider"}
	var c Chart
	for _, n := range names {
		c.Lines = append(c.Lines, Line{Name: n, Points: []Point{{0, 0}, {1, 1}}})
	}
	at, rows := c.legend()
	if rows < 2 {
		t.Fatalf("%d entries this long fit on %d row", len(names), rows)
	}
	for i, a := range at {
		if end := a.x + 28 + 7*len(names[i]); end > width-marginRight {
			t.Errorf("entry %q ends at %d, past the chart's %d", names[i], end, width-marginRight)
		}
	}
	svg := string(c.SVG())
	want := `height="` + strconv.Itoa(height+legendRow*(rows-1)) + `"`
	if !strings.Contains(svg, want) {
		t.Errorf("the chart is not %s with %d legend rows", want, rows)
	}
	c.Lines = c.Lines[:2]
	if _, rows := c.legend(); rows != 1 {
		t.Errorf("two short entries take %d rows", rows)
	}
}
