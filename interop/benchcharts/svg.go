package main

import (
	"fmt"
	"html"
	"io"
	"math"
	"strings"
)

// chart is a horizontal bar chart: one or more panels side by side (say,
// requests per second and p99 latency), each with the same groups (say,
// bindings) and in each group one bar per series (say, servers).
type chart struct {
	Title    string
	Subtitle []string // the machine, the date, the command: one line each
	Series   []string // legend order, the bars' order in every group
	Groups   []string
	Panels   []panel
	// Colors maps a series to its fill; series without one take the
	// palette's colors in order.
	Colors map[string]string
	// Labels are the legend's words for a series (default: its name).
	Labels map[string]string
}

// Text widths, in characters, before a line wraps.
const (
	titleChars    = 88
	subtitleChars = 135
)

// wrap breaks s at spaces into lines of at most n characters (a longer
// word stays whole).
func wrap(s string, n int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Split(s, " ") {
		if line != "" && len([]rune(line))+1+len([]rune(w)) > n {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return append(lines, line)
}

func (c *chart) label(series string) string {
	if l, ok := c.Labels[series]; ok {
		return l
	}
	return series
}

// panel is one measure: Values[group][series], NaN where not measured.
type panel struct {
	Title  string // "requests per second (higher is better)"
	Values [][]float64
	Format func(float64) string
}

// palette is for series without a color of their own.
var palette = []string{"#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#bcbd22", "#e377c2", "#7f7f7f", "#ff7f0e", "#d62728"}

// Layout, in pixels.
const (
	chartWidth  = 880
	margin      = 16
	groupColumn = 120 // the groups' labels
	barHeight   = 14
	barGap      = 3
	groupGap    = 14
	panelGap    = 24
	lineHeight  = 16
	valueRoom   = 64 // right of the longest bar, for its label
)

// render writes c as a standalone SVG document.
func (c *chart) render(w io.Writer) error {
	var b strings.Builder
	y := margin
	var header []string
	for i, l := range wrap(c.Title, titleChars) {
		y += lineHeight + 4*min(1, i+1)
		header = append(header, fmt.Sprintf(`<text x="%d" y="%d" class="title">%s</text>`, margin, y, esc(l)))
	}
	y += 4
	for _, s := range c.Subtitle {
		for _, l := range wrap(s, subtitleChars) {
			y += lineHeight - 2
			header = append(header, fmt.Sprintf(`<text x="%d" y="%d" class="sub">%s</text>`, margin, y, esc(l)))
		}
	}
	// Legend, wrapped to the width.
	y += lineHeight + 8
	x := margin
	for _, s := range c.Series {
		label := c.label(s)
		w := 16 + 7*len([]rune(label)) + 18
		if x > margin && x+w > chartWidth-margin {
			x, y = margin, y+lineHeight+2
		}
		header = append(header, fmt.Sprintf(`<rect x="%d" y="%d" width="12" height="12" fill="%s"/><text x="%d" y="%d" class="legend">%s</text>`,
			x, y-10, c.color(s), x+16, y, esc(label)))
		x += w
	}
	y += 14

	// Panels side by side; each has a title line, then the groups.
	panelWidth := (chartWidth - 2*margin - groupColumn - panelGap*(len(c.Panels)-1)) / max(1, len(c.Panels))
	top := y + lineHeight
	rows := top + 6
	var body []string
	for gi, g := range c.Groups {
		groupTop := rows
		rows += len(c.Series)*(barHeight+barGap) - barGap
		lines := strings.SplitN(g, ", ", 2)
		mid := (groupTop+rows)/2 + 4 - (len(lines)-1)*lineHeight/2
		for i, l := range lines {
			body = append(body, fmt.Sprintf(`<text x="%d" y="%d" class="group">%s</text>`, margin, mid+i*lineHeight, esc(l)))
		}
		for pi, p := range c.Panels {
			px := margin + groupColumn + pi*(panelWidth+panelGap)
			scale := float64(panelWidth-valueRoom) / p.max()
			for si, s := range c.Series {
				by := groupTop + si*(barHeight+barGap)
				v := math.NaN()
				if gi < len(p.Values) && si < len(p.Values[gi]) {
					v = p.Values[gi][si]
				}
				if math.IsNaN(v) {
					body = append(body, fmt.Sprintf(`<text x="%d" y="%d" class="missing">not measured</text>`, px+2, by+barHeight-3))
					continue
				}
				wd := math.Max(1, v*scale) // a negative value (a ratio below 1) is a sliver
				body = append(body, fmt.Sprintf(`<rect class="bar" x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s, %s: %s</title></rect>`,
					px, by, wd, barHeight, c.color(s), esc(g), esc(s), esc(p.Format(v))))
				body = append(body, fmt.Sprintf(`<text x="%.1f" y="%d" class="value">%s</text>`, float64(px)+wd+4, by+barHeight-3, esc(p.Format(v))))
			}
		}
		rows += groupGap
	}
	for pi, p := range c.Panels {
		px := margin + groupColumn + pi*(panelWidth+panelGap)
		header = append(header, fmt.Sprintf(`<text x="%d" y="%d" class="panel">%s</text>`, px, top, esc(p.Title)),
			fmt.Sprintf(`<line x1="%d" y1="%d" x2="%d" y2="%d" class="axis"/>`, px, top+4, px, rows-groupGap+2))
	}
	height := rows + margin

	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %[1]d %[2]d" role="img" aria-label="%[3]s">
<title>%[3]s</title>
<style>
text { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; font-size: 12px; fill: #222; }
.title { font-size: 16px; font-weight: bold; }
.sub { fill: #555; font-size: 11px; }
.panel { font-weight: bold; }
.group { font-weight: bold; }
.value { font-size: 11px; }
.missing { fill: #999; font-size: 11px; font-style: italic; }
.axis { stroke: #888; stroke-width: 1; }
</style>
<rect width="100%%" height="100%%" fill="#fff"/>
`, chartWidth, height, esc(c.Title))
	for _, l := range header {
		b.WriteString(l + "\n")
	}
	for _, l := range body {
		b.WriteString(l + "\n")
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func (c *chart) color(series string) string {
	if col, ok := c.Colors[series]; ok {
		return col
	}
	i := 0
	for _, s := range c.Series {
		if s == series {
			break
		}
		if _, own := c.Colors[s]; !own {
			i++
		}
	}
	return palette[i%len(palette)]
}

// max is the panel's largest value (1 when it has none).
func (p panel) max() float64 {
	m := 0.0
	for _, g := range p.Values {
		for _, v := range g {
			if !math.IsNaN(v) && v > m {
				m = v
			}
		}
	}
	if m == 0 {
		return 1
	}
	return m
}

func esc(s string) string { return html.EscapeString(s) }
