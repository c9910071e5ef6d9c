package org.pthread4j.cli.bench;

import org.jfree.chart.ChartFactory;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.CategoryAxis;
import org.jfree.chart.axis.LogAxis;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.axis.NumberTickUnit;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.DatasetRenderingOrder;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.chart.renderer.category.MinMaxCategoryRenderer;
import org.jfree.chart.renderer.category.StandardBarPainter;
import org.jfree.chart.renderer.xy.XYErrorRenderer;
import org.jfree.chart.title.TextTitle;
import org.jfree.data.category.DefaultCategoryDataset;
import org.jfree.data.xy.YIntervalSeries;
import org.jfree.data.xy.YIntervalSeriesCollection;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Paint;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import javax.imageio.IIOImage;
import javax.imageio.ImageIO;
import javax.imageio.ImageTypeSpecifier;
import javax.imageio.ImageWriteParam;
import javax.imageio.ImageWriter;
import javax.imageio.metadata.IIOMetadata;
import javax.imageio.metadata.IIOMetadataNode;
import javax.imageio.stream.ImageOutputStream;
import java.text.DecimalFormat;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * PNG charts of the rows, drawn with JFreeChart in headless mode: for a measure swept over
 * thread counts, its median against threads, one line per implementation with a min-max
 * error bar at each point (the reference grey); for every other measure, a bar per implementation (median) with a
 * min-max whisker and its ratio to the reference. One file per workload and measure.
 */
public final class Charts {
    private static final Color REFERENCE = new Color(0x80, 0x80, 0x80);
    private static final Color JAVA = new Color(0x1f, 0x77, 0xb4);
    private static final Color NATIVE = new Color(0xff, 0x7f, 0x0e);
    private static final int WIDTH = 1000;
    /** A palette that reads on white (Tableau 10 less its grey, which marks the reference), one colour per line. */
    private static final Color[] PALETTE = {
        new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c), new Color(0xd62728), new Color(0x9467bd),
        new Color(0x8c564b), new Color(0xe377c2), new Color(0xbcbd22), new Color(0x17becf)};
    /** Medians spanning more than this factor get a logarithmic value axis. */
    private static final double LOG_SPAN = 100;

    /** The {@code Software} text of every chart's PNG metadata: how an earlier chart is recognized. */
    public static final String SOFTWARE = "pthread4j bench";

    private Charts() {
    }

    /**
     * Makes sure, before anything runs, that charts can go into {@code dir} without destroying a
     * file: the directory is created when missing and must take a new file; an existing chart
     * file of a selected workload (named {@code WORKLOAD-...png}) must be a chart an earlier
     * bench wrote ({@link #SOFTWARE} in its metadata).
     *
     * @param dir       the directory
     * @param workloads the selected workloads' names
     * @throws IOException when the directory cannot take the charts; the message says why and
     *                     nothing was changed but the directory's creation
     */
    public static void prepare(final Path dir, final List<String> workloads) throws IOException {
        try {
            Files.createDirectories(dir);
            Files.delete(Files.createTempFile(dir, ".pthread4j-bench", ".png"));
        } catch (final IOException e) {
            throw new IOException("--chart " + dir + ": cannot write charts there: "
                + org.pthread4j.cli.fs.Problems.words(e), e);
        }
        try (var files = Files.list(dir)) {
            for (final Path f : files.toList()) {
                final String name = f.getFileName().toString();
                for (final String w : workloads) {
                    if (name.startsWith(w + "-") && name.endsWith(".png") && !ours(f)) {
                        throw new IOException("--chart " + dir + ": " + name + " exists and is not a chart of "
                            + "pthread4j bench; it is left as it is: choose another directory, or move it away");
                    }
                }
            }
        }
    }

    /** Whether a file is a PNG this class wrote: its text metadata names {@link #SOFTWARE}. */
    static boolean ours(final Path file) throws IOException {
        if (!Files.isRegularFile(file, LinkOption.NOFOLLOW_LINKS)) {
            return false;
        }
        final byte[] head;
        try (InputStream in = Files.newInputStream(file)) {
            head = in.readNBytes(4096);
        }
        final String text = new String(head, StandardCharsets.ISO_8859_1);
        return text.startsWith("\u0089PNG") && text.contains("Software\u0000" + SOFTWARE);
    }

    /** Writes an image as PNG with {@code Software: pthread4j bench} in a text chunk. */
    private static void png(final Path file, final BufferedImage image) throws IOException {
        final ImageWriter writer = ImageIO.getImageWritersByFormatName("png").next();
        try {
            final ImageWriteParam param = writer.getDefaultWriteParam();
            final IIOMetadata meta = writer.getDefaultImageMetadata(ImageTypeSpecifier.createFromRenderedImage(image),
                param);
            final IIOMetadataNode entry = new IIOMetadataNode("tEXtEntry");
            entry.setAttribute("keyword", "Software");
            entry.setAttribute("value", SOFTWARE);
            final IIOMetadataNode text = new IIOMetadataNode("tEXt");
            text.appendChild(entry);
            final IIOMetadataNode root = new IIOMetadataNode("javax_imageio_png_1.0");
            root.appendChild(text);
            meta.mergeTree("javax_imageio_png_1.0", root);
            final Path tmp = Files.createTempFile(file.toAbsolutePath().getParent(), "." + file.getFileName(), ".tmp");
            try {
                try (ImageOutputStream out = ImageIO.createImageOutputStream(tmp.toFile())) {
                    writer.setOutput(out);
                    writer.write(null, new IIOImage(image, null, meta), param);
                }
                Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } finally {
                Files.deleteIfExists(tmp);
            }
        } finally {
            writer.dispose();
        }
    }

    /**
     * Writes the charts.
     *
     * @param dir  the directory ({@link #prepare}d)
     * @param rows the rows
     * @return the files written
     * @throws IOException when a file cannot be written
     */
    public static List<Path> write(final Path dir, final List<Row> rows) throws IOException {
        System.setProperty("java.awt.headless", "true");
        final Map<String, List<Row>> blocks = new LinkedHashMap<>();
        for (final Row r : rows) {
            if (r.measured()) {
                blocks.computeIfAbsent(r.workload() + "\u0000" + r.section(), k -> new ArrayList<>()).add(r);
            }
        }
        final List<Path> files = new ArrayList<>();
        for (final List<Row> block : blocks.values()) {
            final Row first = block.get(0);
            final Set<Integer> threads = new LinkedHashSet<>();
            for (final Row r : block) {
                threads.add(r.threads());
            }
            final JFreeChart chart = threads.size() > 1 ? sweep(block) : bars(block);
            chart.addSubtitle(new TextTitle((threads.size() > 1 ? "median, with min-max bars, of " + runs(block) + " runs per point; "
                : "bar: median; whisker: min to max; of " + runs(block) + " runs; label: median (ratio to the grey reference); ")
                + first.unit() + ", " + (first.higherIsBetter() ? "higher" : "lower") + " is better",
                new Font(Font.SANS_SERIF, Font.PLAIN, 12)));
            final int height = threads.size() > 1 ? 600 : Math.max(300, 120 + 38 * block.size());
            final Path file = dir.resolve(fileName(first.workload(), first.section()));
            if (Files.exists(file, LinkOption.NOFOLLOW_LINKS) && !ours(file)) {
                throw new IOException(file + ": exists and is not a chart of pthread4j bench; left as it is");
            }
            png(file, chart.createBufferedImage(WIDTH, height));
            files.add(file);
        }
        return files;
    }

    /**
     * @param workload the workload
     * @param section  the measure
     * @return a file name made of both, safe on every file system
     */
    static String fileName(final String workload, final String section) {
        final String s = (workload + "-" + section).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9]+", "-");
        return s.replaceAll("^-+|-+$", "") + ".png";
    }

    private static int runs(final List<Row> block) {
        int runs = 0;
        for (final Row r : block) {
            runs = Math.max(runs, r.stats().runs());
        }
        return runs;
    }

    private static JFreeChart sweep(final List<Row> block) {
        final Row first = block.get(0);
        final Map<String, YIntervalSeries> series = new LinkedHashMap<>();
        for (final Row r : block) {
            series.computeIfAbsent(r.label(), YIntervalSeries::new)
                .add(r.threads(), r.stats().median(), r.stats().min(), r.stats().max());
        }
        final YIntervalSeriesCollection data = new YIntervalSeriesCollection();
        series.values().forEach(data::addSeries);
        final JFreeChart chart = ChartFactory.createXYLineChart(first.workload() + ": " + first.section(),
            "threads", first.unit(), data, PlotOrientation.VERTICAL, true, false, false);
        final XYPlot plot = chart.getXYPlot();
        final XYErrorRenderer renderer = new XYErrorRenderer();
        renderer.setDefaultLinesVisible(true);
        renderer.setDefaultShapesVisible(true);
        renderer.setDrawXError(false);
        renderer.setCapLength(6);
        // The reference (the first series) is grey and thicker, as in the bar charts; the others
        // take the palette in turn, dashed with square marks once it is used up, so no two
        // lines look alike.
        renderer.setSeriesStroke(0, new BasicStroke(3f));
        renderer.setSeriesPaint(0, REFERENCE);
        renderer.setSeriesShape(0, new java.awt.geom.Ellipse2D.Double(-4, -4, 8, 8));
        for (int i = 1; i < data.getSeriesCount(); i++) {
            final int k = i - 1;
            final boolean second = k / PALETTE.length % 2 == 1;
            renderer.setSeriesStroke(i, second
                ? new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f)
                : new BasicStroke(2f));
            renderer.setSeriesPaint(i, PALETTE[k % PALETTE.length]);
            renderer.setSeriesShape(i, second ? new java.awt.geom.Rectangle2D.Double(-4, -4, 8, 8)
                : new java.awt.geom.Ellipse2D.Double(-4, -4, 8, 8));
        }
        renderer.setErrorPaint(null);
        plot.setRenderer(renderer);
        final LogAxis x = new LogAxis("threads");
        x.setBase(2);
        x.setTickUnit(new NumberTickUnit(1, new DecimalFormat("0")));
        x.setNumberFormatOverride(new DecimalFormat("0"));
        x.setSmallestValue(0.5);
        plot.setDomainAxis(x);
        double lo = Double.MAX_VALUE;
        double hi = 0;
        for (final Row r : block) {
            lo = Math.min(lo, r.stats().min());
            hi = Math.max(hi, r.stats().max());
        }
        if (lo > 0 && hi / lo > LOG_SPAN) {
            final LogAxis y = new LogAxis(first.unit() + " (log scale)");
            y.setNumberFormatOverride(compact());
            y.setTickUnit(new NumberTickUnit(1)); // a tick per power of ten
            y.setMinorTickMarksVisible(true);
            y.setSmallestValue(lo / 2);
            plot.setRangeAxis(y);
        } else {
            final NumberAxis y = (NumberAxis) plot.getRangeAxis();
            y.setAutoRangeIncludesZero(true);
            y.setNumberFormatOverride(compact());
        }
        plot.setBackgroundPaint(Color.WHITE);
        plot.setDomainGridlinePaint(Color.LIGHT_GRAY);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }

    private static java.text.NumberFormat compact() {
        final java.text.NumberFormat f = java.text.NumberFormat.getCompactNumberInstance(Locale.US,
            java.text.NumberFormat.Style.SHORT);
        f.setMaximumFractionDigits(2);
        return f;
    }

    private static JFreeChart bars(final List<Row> block) {
        final Row first = block.get(0);
        final DefaultCategoryDataset medians = new DefaultCategoryDataset();
        final DefaultCategoryDataset range = new DefaultCategoryDataset();
        final List<Paint> paints = new ArrayList<>();
        final List<String> labels = new ArrayList<>();
        for (final Row r : block) {
            final String label = r.label() + ":  " + Report.number(r.stats().median()) + "  (x" + Report.ratio(r.ratio()) + ")";
            labels.add(label);
            medians.addValue(r.stats().median(), "median", label);
            range.addValue(r.stats().min(), "min", label);
            range.addValue(r.stats().max(), "max", label);
            paints.add(r.isReference() ? REFERENCE : (r.backend().startsWith("C") ? NATIVE : JAVA));
        }
        final String title = first.workload() + ": " + first.section()
            + (first.threads() > 1 ? " (" + first.threads() + " threads)" : "");
        final JFreeChart chart = ChartFactory.createBarChart(title, null, first.unit(), medians,
            PlotOrientation.HORIZONTAL, false, false, false);
        final CategoryPlot plot = chart.getCategoryPlot();
        final BarRenderer bars = new BarRenderer() {
            private static final long serialVersionUID = 1L;

            @Override
            public Paint getItemPaint(final int row, final int column) {
                return paints.get(column);
            }
        };
        bars.setBarPainter(new StandardBarPainter());
        bars.setShadowVisible(false);
        bars.setMaximumBarWidth(0.6);
        plot.setRenderer(0, bars);
        final MinMaxCategoryRenderer whiskers = new MinMaxCategoryRenderer();
        whiskers.setDrawLines(false);
        whiskers.setGroupPaint(Color.BLACK);
        whiskers.setGroupStroke(new BasicStroke(1.5f));
        plot.setDataset(1, range);
        plot.setRenderer(1, whiskers);
        plot.setDatasetRenderingOrder(DatasetRenderingOrder.FORWARD);
        ((NumberAxis) plot.getRangeAxis()).setNumberFormatOverride(compact());
        final CategoryAxis x = plot.getDomainAxis();
        x.setMaximumCategoryLabelWidthRatio(0.6f);
        x.setTickLabelFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
        plot.setBackgroundPaint(Color.WHITE);
        plot.setRangeGridlinePaint(Color.LIGHT_GRAY);
        chart.setBackgroundPaint(Color.WHITE);
        return chart;
    }
}
