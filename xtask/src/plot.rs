//! SVG figures drawn with plotters: line plots (linear or logarithmic y axis) and
//! heatmaps of a matrix (e.g. learned Boolean factors).
//!
//! Text is written as SVG `<text>` elements, so no font files are needed.

use std::ops::Range;
use std::path::Path;

use anyhow::{Context as _, anyhow, bail};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;

/// One named curve of a line plot.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// Legend label.
    pub name: String,
    /// `(x, y)` points, drawn in the given order.
    pub points: Vec<(f64, f64)>,
}

impl Series {
    /// A series from a name and its points.
    pub fn new(name: impl Into<String>, points: Vec<(f64, f64)>) -> Self {
        Self {
            name: name.into(),
            points,
        }
    }
}

/// Colours of successive series (distinct in print and for common colour blindness).
const PALETTE: [RGBColor; 8] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
    RGBColor(150, 150, 150),
];

/// Series with more points than this are drawn without point markers.
const MAX_MARKED_POINTS: usize = 60;

fn padded(min: f64, max: f64, log: bool) -> Range<f64> {
    if log {
        if min == max {
            return min / 2.0..max * 2.0;
        }
        let span = (max / min).log10();
        let pad = 10f64.powf(0.05 * span);
        return min / pad..max * pad;
    }
    if min == max {
        let half = if min == 0.0 { 0.5 } else { 0.05 * min.abs() };
        return min - half..max + half;
    }
    let pad = 0.05 * (max - min);
    min - pad..max + pad
}

/// Draws `series` as lines (with point markers on short series) into an SVG file at
/// `path`.
///
/// Points with a non-finite coordinate are skipped, and with `log_y` so are points
/// with `y <= 0` (they have no place on a logarithmic axis).
///
/// # Errors
/// No drawable point at all, or a failure to write the file.
pub fn line_plot(
    path: &Path,
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[Series],
    log_y: bool,
) -> anyhow::Result<()> {
    let kept: Vec<(&str, Vec<(f64, f64)>)> = series
        .iter()
        .map(|s| {
            let pts = s
                .points
                .iter()
                .copied()
                .filter(|(x, y)| x.is_finite() && y.is_finite() && (!log_y || *y > 0.0))
                .collect();
            (s.name.as_str(), pts)
        })
        .collect();
    let all = kept.iter().flat_map(|(_, p)| p.iter().copied());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    let mut any = false;
    for (x, y) in all {
        any = true;
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !any {
        bail!(
            "plot `{title}`: no drawable point{}",
            if log_y {
                " (a logarithmic axis needs finite y > 0)"
            } else {
                " (all coordinates non-finite)"
            }
        );
    }
    let x_range = padded(x0, x1, false);
    let root = SVGBackend::new(path, (900, 560)).into_drawing_area();
    let frame = LineFrame {
        root: &root,
        title,
        x_label,
        y_label,
        x_range,
        series: &kept,
    };
    if log_y {
        frame.draw(padded(y0, y1, true).log_scale())?;
    } else {
        frame.draw(padded(y0, y1, false))?;
    }
    root.present()
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("writing {}", path.display()))
}

/// Everything of a line plot but its y axis (linear or logarithmic: another type).
struct LineFrame<'a, 'b> {
    root: &'a DrawingArea<SVGBackend<'b>, Shift>,
    title: &'a str,
    x_label: &'a str,
    y_label: &'a str,
    x_range: Range<f64>,
    series: &'a [(&'a str, Vec<(f64, f64)>)],
}

impl LineFrame<'_, '_> {
    /// Draws the frame's series on the y axis `y_spec`.
    fn draw<YS>(self, y_spec: YS) -> anyhow::Result<()>
    where
        YS: AsRangedCoord<Value = f64>,
        YS::CoordDescType: ValueFormatter<f64>,
    {
        let Self {
            root,
            title,
            x_label,
            y_label,
            x_range,
            series,
        } = self;
        let e = |e: DrawingAreaErrorKind<std::io::Error>| anyhow!("plot `{title}`: {e}");
        root.fill(&WHITE).map_err(e)?;
        let mut chart = ChartBuilder::on(root)
            .caption(title, ("sans-serif", 22))
            .margin(15)
            .x_label_area_size(45)
            .y_label_area_size(75)
            .build_cartesian_2d(x_range, y_spec)
            .map_err(e)?;
        chart
            .configure_mesh()
            .x_desc(x_label)
            .y_desc(y_label)
            .axis_desc_style(("sans-serif", 16))
            .label_style(("sans-serif", 13))
            .light_line_style(WHITE.mix(0.0))
            .draw()
            .map_err(e)?;
        for (i, (name, pts)) in series.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))
                .map_err(e)?
                .label(*name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
            if pts.len() <= MAX_MARKED_POINTS {
                chart
                    .draw_series(pts.iter().map(|&p| Circle::new(p, 3, color.filled())))
                    .map_err(e)?;
            }
        }
        if series.iter().any(|(name, _)| !name.is_empty()) {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperRight)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(e)?;
        }
        Ok(())
    }
}

/// Colour of `t` in `[0, 1]`: white for 0 to dark blue for 1; grey for NaN.
fn heat_color(t: f64) -> RGBColor {
    if t.is_nan() {
        return RGBColor(190, 190, 190);
    }
    let t = t.clamp(0.0, 1.0);
    let lerp = |a: u8, b: u8| (f64::from(a) + t * (f64::from(b) - f64::from(a))).round() as u8;
    RGBColor(lerp(255, 8), lerp(255, 48), lerp(255, 107))
}

/// A heatmap to draw: a row-major `n_rows x n_cols` matrix with its title and axis labels.
#[derive(Debug, Clone, Copy)]
pub struct Heatmap<'a> {
    /// The caption (the value range is appended to it).
    pub title: &'a str,
    /// Label of the horizontal axis (the columns).
    pub x_label: &'a str,
    /// Label of the vertical axis (the rows).
    pub y_label: &'a str,
    /// The entries, row after row.
    pub values: &'a [f64],
    /// Number of rows.
    pub n_rows: usize,
    /// Number of columns.
    pub n_cols: usize,
}

/// Draws `map` into an SVG file at `path`: row 0 at the top, white at the smallest
/// finite value, dark blue at the largest (so a 0/1 matrix is white/blue), grey for
/// NaN. The value range is given in the caption.
///
/// # Errors
/// `values.len() != n_rows * n_cols`, an empty matrix, or a failure to write the
/// file.
pub fn heatmap(path: &Path, map: &Heatmap<'_>) -> anyhow::Result<()> {
    let Heatmap {
        title,
        x_label,
        y_label,
        values,
        n_rows,
        n_cols,
    } = *map;
    if n_rows == 0 || n_cols == 0 {
        bail!("heatmap `{title}`: empty matrix ({n_rows} x {n_cols})");
    }
    if values.len() != n_rows * n_cols {
        bail!(
            "heatmap `{title}`: {} values for a {n_rows} x {n_cols} matrix (expected {})",
            values.len(),
            n_rows * n_cols
        );
    }
    let finite = values.iter().copied().filter(|v| v.is_finite());
    let (lo, hi) = finite.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
        (a.min(v), b.max(v))
    });
    let (lo, hi) = if lo.is_finite() { (lo, hi) } else { (0.0, 0.0) };
    let scale = |v: f64| {
        if !v.is_finite() {
            f64::NAN
        } else if hi > lo {
            (v - lo) / (hi - lo)
        } else {
            0.5
        }
    };
    let cell = (640 / n_rows.max(n_cols)).clamp(2, 40) as u32;
    let width = n_cols as u32 * cell + 120;
    let height = n_rows as u32 * cell + 110;
    let root = SVGBackend::new(path, (width.max(320), height.max(240))).into_drawing_area();
    let e = |e: DrawingAreaErrorKind<std::io::Error>| anyhow!("heatmap `{title}`: {e}");
    root.fill(&WHITE).map_err(e)?;
    let caption = format!(
        "{title} (white = {}, blue = {})",
        crate::report::format_number(lo),
        crate::report::format_number(hi)
    );
    let (rows, cols) = (n_rows as i32, n_cols as i32);
    let mut chart = ChartBuilder::on(&root)
        .caption(caption, ("sans-serif", 16))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(0..cols, 0..rows)
        .map_err(e)?;
    let row_label = |y: &i32| format!("{}", rows - *y);
    chart
        .configure_mesh()
        .disable_mesh()
        .x_desc(x_label)
        .y_desc(y_label)
        .axis_desc_style(("sans-serif", 14))
        .y_label_formatter(&row_label)
        .draw()
        .map_err(e)?;
    chart
        .draw_series((0..n_rows).flat_map(|r| {
            (0..n_cols).map(move |c| {
                let top = rows - r as i32;
                let color = heat_color(scale(values[r * n_cols + c]));
                Rectangle::new([(c as i32, top - 1), (c as i32 + 1, top)], color.filled())
            })
        }))
        .map_err(e)?;
    root.present()
        .map_err(|e| anyhow!("{e}"))
        .with_context(|| format!("writing {}", path.display()))
}
