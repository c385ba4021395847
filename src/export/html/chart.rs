//! The charts of the HTML report: a few kinds (lines and points over a linear or log axis, horizontal
//! bars on a time line, stacked bars), each drawn to SVG text by plotters' SVG backend, which needs no
//! font files (SVG text is laid out by the browser) and no network. Every chart has a title and axis
//! labels with units; each is a `<figure data-chart=NAME>` the tests count.

use plotters::coord::Shift;
use plotters::prelude::*;

/// Chart size in pixels (the page scales it to its width).
const SIZE: (u32, u32) = (760, 320);
/// At most this many points per series: longer series keep every k-th point (never histogram data).
pub const MAX_POINTS: usize = 2_000;

/// The series colours, in order (Okabe-Ito, readable by colour-blind readers and in print).
pub const COLOURS: [RGBColor; 6] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
];

/// One named series of (x, y) points.
pub struct Series {
    /// The legend's name.
    pub name: String,
    /// The points.
    pub points: Vec<(f64, f64)>,
    /// Drawn as points (else as a line).
    pub dots: bool,
}

impl Series {
    /// A line through `points` (dots when there are too few to make a line).
    pub fn line(name: &str, points: Vec<(f64, f64)>) -> Series {
        let dots = points.len() < 3;
        Series { name: name.into(), points: thin(points), dots }
    }

    /// `points` as dots.
    pub fn dots(name: &str, points: Vec<(f64, f64)>) -> Series {
        Series { name: name.into(), points: thin(points), dots: true }
    }
}

/// Keeps at most [`MAX_POINTS`] of `points`, evenly spread (the first and the last kept).
pub fn thin(points: Vec<(f64, f64)>) -> Vec<(f64, f64)> {
    if points.len() <= MAX_POINTS {
        return points;
    }
    let step = points.len().div_ceil(MAX_POINTS);
    let last = *points.last().expect("not empty");
    let mut out: Vec<(f64, f64)> = points.into_iter().step_by(step).collect();
    if out.last() != Some(&last) {
        out.push(last);
    }
    out
}

/// What an XY chart shows.
pub struct Xy<'a> {
    /// The `data-chart` name (tests count these).
    pub id: &'a str,
    /// The title.
    pub title: &'a str,
    /// The x axis label, with its unit.
    pub x: &'a str,
    /// The y axis label, with its unit.
    pub y: &'a str,
    /// A log-scaled y axis.
    pub log_y: bool,
    /// An x axis of percentiles on HdrHistogram's scale: x = 1 / (1 - q), log-scaled.
    pub nines_x: bool,
}

impl<'a> Xy<'a> {
    /// A latency percentile plot: percentiles on HdrHistogram's axis, latency in ms on a log axis.
    pub fn percentiles(id: &'a str, title: &'a str) -> Xy<'a> {
        Xy { id, title, x: "percentile (log scale of 1 / (1 - q))", y: "latency (ms, log)", log_y: true, nines_x: true }
    }
}

/// Each named operation's latency percentiles from its histogram (all operations when `names` is
/// empty), named `prefix` + the operation.
pub fn percentile_series(r: &crate::stats::report::RunReport, names: &[&str], prefix: &str) -> Vec<Series> {
    r.ops
        .iter()
        .filter(|o| names.is_empty() || names.contains(&o.op.as_str()))
        .filter_map(|o| Some((o.op.as_str(), crate::stats::histogram::Histogram::from_data(&o.histogram).ok()?)))
        .map(|(name, h)| Series::line(&format!("{prefix}{name}"), percentile_points(&h, 1e-6)))
        .collect()
}

/// Wraps an SVG in the page's figure element with its caption and, when given, how to read it.
pub fn figure(id: &str, title: &str, svg: &str, note: &str) -> String {
    let note = if note.is_empty() { String::new() } else { format!("<p class=\"note\">{}</p>", super::esc(note)) };
    format!(
        "<figure class=\"chart\" data-chart=\"{id}\"><figcaption>{}</figcaption>{svg}{note}</figure>\n",
        super::esc(title)
    )
}

/// An empty-chart note where there was nothing to draw (still titled, so a reader knows why).
fn nothing(id: &str, title: &str, why: &str) -> String {
    format!(
        "<figure class=\"chart empty\" data-chart=\"{id}\"><figcaption>{}</figcaption><p>{}</p></figure>\n",
        super::esc(title),
        super::esc(why)
    )
}

fn draw(f: impl FnOnce(&DrawingArea<SVGBackend, Shift>) -> Result<(), String>) -> String {
    let mut svg = String::new();
    let drawn = {
        let root = SVGBackend::with_string(&mut svg, SIZE).into_drawing_area();
        root.fill(&WHITE)
            .map_err(|e| e.to_string())
            .and_then(|_| f(&root))
            .and_then(|_| root.present().map_err(|e| e.to_string()))
    };
    match drawn {
        Ok(()) => svg,
        Err(e) => format!("<p class=\"error\">chart failed: {}</p>", super::esc(&e)),
    }
}

fn range(values: impl Iterator<Item = f64>, log: bool) -> (f64, f64) {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.filter(|v| v.is_finite() && (!log || *v > 0.0)) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return if log { (1.0, 10.0) } else { (0.0, 1.0) };
    }
    if log {
        (lo / 1.5, hi * 1.5)
    } else {
        let lo = lo.min(0.0);
        (lo, if hi > lo { hi + (hi - lo) * 0.05 } else { lo + 1.0 })
    }
}

/// A chart of lines and dots. An empty chart says so.
pub fn xy(c: &Xy, series: &[Series], note: &str) -> String {
    if series.iter().all(|s| s.points.is_empty()) {
        return nothing(c.id, c.title, "no data points in this report");
    }
    let xs = series.iter().flat_map(|s| s.points.iter().map(|p| p.0));
    let ys = series.iter().flat_map(|s| s.points.iter().map(|p| p.1));
    let (x0, x1) = range(xs, c.nines_x);
    let (x0, x1) = if c.nines_x { (1.0, x1.max(10.0)) } else { (x0, x1) };
    let (y0, y1) = range(ys, c.log_y);
    // A log axis within one decade has no labels: linear there.
    let log_y = c.log_y && y1 / y0 >= 10.0;
    let (y0, y1) = if c.log_y && !log_y {
        range(series.iter().flat_map(|s| s.points.iter().map(|p| p.1)), false)
    } else {
        (y0, y1)
    };
    let svg = draw(|root| {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let mut b = frame(root);
        macro_rules! body {
            ($chart:expr) => {{
                let mut chart = $chart;
                let mut mesh = chart.configure_mesh();
                let y_desc = if c.log_y && !log_y { c.y.replace(", log)", ")") } else { c.y.to_string() };
                mesh.x_desc(c.x).y_desc(y_desc).light_line_style(WHITE.mix(0.0));
                // Only the decades (p0, p90, p99, p99.9, ...): the log axis's other key points crowd.
                let nines = |v: &f64| {
                    let l = v.log10();
                    if (l - l.round()).abs() < 0.02 {
                        format!("p{}", trim(100.0 * (1.0 - 10f64.powf(-l.round()))))
                    } else {
                        String::new()
                    }
                };
                if c.nines_x {
                    mesh.x_label_formatter(&nines);
                }
                mesh.draw().map_err(e)?;
                for (i, s) in series.iter().enumerate() {
                    let colour = COLOURS[i % COLOURS.len()];
                    let drawn = if s.dots {
                        chart.draw_series(s.points.iter().map(|&p| Circle::new(p, 3, colour.filled())))
                    } else {
                        chart.draw_series(LineSeries::new(s.points.iter().copied(), colour.stroke_width(2)))
                    };
                    drawn.map_err(e)?.label(s.name.clone()).legend(swatch(colour));
                }
                if series.len() > 1 || !series[0].name.is_empty() {
                    draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
                }
                Ok(())
            }};
        }
        match (c.nines_x, log_y) {
            (true, true) => body!(b.build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale()).map_err(e)?),
            (true, false) => body!(b.build_cartesian_2d((x0..x1).log_scale(), y0..y1).map_err(e)?),
            (false, true) => body!(b.build_cartesian_2d(x0..x1, (y0..y1).log_scale()).map_err(e)?),
            (false, false) => body!(b.build_cartesian_2d(x0..x1, y0..y1).map_err(e)?),
        }
    });
    figure(c.id, c.title, &svg, note)
}

/// One horizontal bar of a time line: its row, and segments (from, to, colour index).
pub struct Bar {
    /// The row (0 at the top).
    pub row: usize,
    /// Its segments, in seconds: (start, end, colour index).
    pub segments: Vec<(f64, f64, usize)>,
}

/// Bars on a time line (a waterfall, a task Gantt chart): `rows` rows, `legend` names each colour
/// (`c`'s log flags are not used).
pub fn bars(c: &Xy, rows: usize, data: &[Bar], legend: &[&str], note: &str) -> String {
    let (id, title, x, y) = (c.id, c.title, c.x, c.y);
    if data.is_empty() {
        return nothing(id, title, "nothing to draw in this report");
    }
    let x1 = range(data.iter().flat_map(|b| b.segments.iter().map(|s| s.1)), false).1;
    // From the first bar's start: a pass that began late is not drawn as a long empty stretch.
    let first = data.iter().flat_map(|b| b.segments.iter().map(|s| s.0)).fold(f64::INFINITY, f64::min);
    let x0 = if first.is_finite() && first < x1 { first - (x1 - first) * 0.02 } else { 0.0 };
    let rows = rows.max(1);
    let svg = draw(|root| {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let mut chart = frame(root).build_cartesian_2d(x0..x1, rows as f64..0f64).map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(x)
            .y_desc(y)
            .y_labels(rows.min(12))
            .y_label_formatter(&|v| format!("{}", v.floor() as i64))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        let h = 0.8;
        for (k, name) in legend.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let rects = data.iter().flat_map(|b| {
                b.segments.iter().filter(move |s| s.2 == k).map(move |s| {
                    let top = b.row as f64 + (1.0 - h) / 2.0;
                    Rectangle::new([(s.0, top), (s.1.max(s.0 + (x1 - x0) * 1e-3), top + h)], colour.filled())
                })
            });
            chart.draw_series(rects).map_err(e)?.label(name.to_string()).legend(swatch(colour));
        }
        draw_legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        Ok(())
    });
    figure(id, title, &svg, note)
}

/// Vertical bars, one group per label, each group stacked from `stacks` (name, value per label).
pub fn stacked(id: &str, title: &str, y: &str, labels: &[String], stacks: &[(&str, Vec<f64>)], note: &str) -> String {
    if labels.is_empty() {
        return nothing(id, title, "nothing to draw in this report");
    }
    let tops: Vec<f64> =
        (0..labels.len()).map(|i| stacks.iter().map(|s| s.1.get(i).copied().unwrap_or(0.0)).sum()).collect();
    let y1 = range(tops.iter().copied(), false).1;
    let n = labels.len();
    let svg = draw(|root| {
        let e = |e: DrawingAreaErrorKind<_>| e.to_string();
        let mut chart = frame(root).build_cartesian_2d(-0.5f64..n as f64 - 0.5, 0f64..y1).map_err(e)?;
        let label = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 0.01 && i >= 0.0 {
                labels.get(i as usize).cloned().unwrap_or_default()
            } else {
                String::new()
            }
        };
        chart
            .configure_mesh()
            .y_desc(y)
            .x_labels(n * 2 + 1)
            .x_label_formatter(&label)
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        let mut base = vec![0.0; n];
        for (k, (name, values)) in stacks.iter().enumerate() {
            let colour = COLOURS[k % COLOURS.len()];
            let rects: Vec<Rectangle<(f64, f64)>> = (0..n)
                .map(|i| {
                    let v = values.get(i).copied().unwrap_or(0.0);
                    let r = Rectangle::new([(i as f64 - 0.3, base[i]), (i as f64 + 0.3, base[i] + v)], colour.filled());
                    base[i] += v;
                    r
                })
                .collect();
            chart.draw_series(rects).map_err(e)?.label(name.to_string()).legend(swatch(colour));
        }
        draw_legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    });
    figure(id, title, &svg, note)
}

/// The frame every chart shares: margins and room for the axis labels.
fn frame<'a, 'b>(root: &'a DrawingArea<SVGBackend<'b>, Shift>) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut b = ChartBuilder::on(root);
    b.margin(12).x_label_area_size(38).y_label_area_size(64);
    b
}

/// The legend's box, in a corner.
fn draw_legend<'a, 'b: 'a, CT: plotters::coord::CoordTranslate>(
    chart: &mut ChartContext<'a, SVGBackend<'b>, CT>,
    at: SeriesLabelPosition,
) -> Result<(), String> {
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.3))
        .position(at)
        .draw()
        .map_err(|e| e.to_string())
}

/// A series' colour swatch in the legend.
fn swatch(colour: RGBColor) -> impl Fn((i32, i32)) -> Rectangle<(i32, i32)> {
    move |(x, y)| Rectangle::new([(x, y - 4), (x + 12, y + 4)], colour.filled())
}

/// A number without trailing zeros ("99.9", "50").
fn trim(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// The percentiles a percentile plot draws: from p0 to p99.999, denser towards the tail.
pub fn percentile_points(h: &crate::stats::histogram::Histogram, scale: f64) -> Vec<(f64, f64)> {
    if h.count() == 0 {
        return Vec::new();
    }
    let mut qs: Vec<f64> = Vec::new();
    let mut nines = 0.0f64;
    // x = 1 / (1 - q) from 1 to 10^5, 40 points per decade.
    while nines <= 5.0 {
        qs.push(1.0 - 10f64.powf(-nines));
        nines += 0.025;
    }
    // No further than the samples reach: p99.99 of 100 samples says nothing new.
    let most = 1.0 - 1.0 / h.count() as f64;
    qs.into_iter()
        .filter(|q| *q <= most.max(0.0) + 1e-12)
        .filter_map(|q| Some((1.0 / (1.0 - q), h.percentile(q)? as f64 * scale)))
        .collect()
}
