package org.pthread4j;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The chapters in {@code docs/} cite code and tests by name: every relative link must point at a
 * file that exists, every {@code `Class.member`} link at a member declared in that file (so a
 * renamed method or test breaks the build, not the reader), every {@code #anchor} at a heading,
 * every test a chapter names (linked or not: the "proved by" tests and the exercises' tests) at
 * a test class, and method, that exists, and the index must list every chapter.
 *
 * <p>What "leaving the repository" means: a relative link or a path written as code must resolve
 * inside the repository, and no absolute path or {@code file:} link is allowed. Links to public
 * sources on the web ({@code http://}, {@code https://}: musl's git and its GitHub mirror, the
 * Linux kernel's source, mailing-list archives) are the citations the chapters rest on and are
 * allowed; a path written as code may name an upstream source file (musl's or the kernel's) as
 * its project names it. No text may point at a file that is not in the repository and not public.
 */
class DocsTest {
    private static final Path DOCS = Path.of("docs");
    private static final Pattern LINK = Pattern.compile("\\[([^\\]]*)\\]\\(([^)\\s]+)\\)");
    private static final Pattern CODE_NAME = Pattern.compile("^`([A-Za-z_][\\w.]*)(?:\\([^`]*\\))?`$");
    private static final Path ROOT = Path.of("").toAbsolutePath().normalize();
    /** A path written as code: with a slash and a file extension or a trailing slash, or a Markdown file. */
    private static final Pattern CODE_PATH = Pattern.compile("`([^`\\s]*/[^`\\s]*(?:/|\\.[A-Za-z]{1,5})|[^`\\s/]+\\.md)`");
    /** Paths of the system the library runs on, not of the repository. */
    private static final Pattern SYSTEM_PATH = Pattern.compile("^/(dev|proc|sys|usr|tmp)(/.*)?$");
    /**
     * Upstream source files, which the chapters name as their projects do and link at the
     * projects' public repositories: musl's ({@code src/thread}, {@code src/internal},
     * {@code include}, {@code arch}) and the Linux kernel's ({@code kernel}, {@code include}).
     */
    private static final Pattern MUSL_PATH = Pattern.compile("^(src/(thread|internal)|include|arch|kernel)/.*");

    static List<Path> chapters() throws IOException {
        try (Stream<Path> s = Files.list(DOCS)) {
            return s.filter(p -> p.toString().endsWith(".md")).sorted().toList();
        }
    }

    @Test
    void everyLinkPointsAtAFileAMemberOrAHeadingThatExists() throws IOException {
        final List<String> broken = new ArrayList<>();
        int checked = 0;
        for (final Path doc : chapters()) {
            final String text = Files.readString(doc);
            final Matcher m = LINK.matcher(text);
            while (m.find()) {
                final String label = m.group(1).trim();
                final String target = m.group(2);
                if (target.startsWith("http://") || target.startsWith("https://")) {
                    continue;
                }
                checked++;
                final int hash = target.indexOf('#');
                final String file = hash < 0 ? target : target.substring(0, hash);
                final String anchor = hash < 0 ? null : target.substring(hash + 1);
                final Path p = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                if (!Files.exists(p)) {
                    broken.add(doc + ": " + target + " does not exist");
                    continue;
                }
                if (anchor != null && p.toString().endsWith(".md") && !anchors(p).contains(anchor)) {
                    broken.add(doc + ": no heading #" + anchor + " in " + p);
                }
                final Matcher name = CODE_NAME.matcher(label);
                if (p.toString().endsWith(".java") && name.matches()) {
                    final String problem = checkMember(p, name.group(1));
                    if (problem != null) {
                        broken.add(doc + ": [" + label + "] -> " + target + ": " + problem);
                    }
                }
            }
        }
        assertTrue(checked > 100, "too few links checked: " + checked);
        assertEquals(List.of(), broken);
    }

    /** @return null if {@code dotted} ({@code Class} or {@code Class.member}) is declared in {@code file} */
    static String checkMember(final Path file, final String dotted) throws IOException {
        final String source = Files.readString(file);
        final String base = file.getFileName().toString().replace(".java", "");
        final String[] parts = dotted.split("\\.");
        final String member = parts[parts.length - 1];
        if (parts.length == 1) {
            return member.equals(base) || Pattern.compile("\\b(class|record|interface|enum)\\s+" + member + "\\b")
                .matcher(source).find() ? null : "no type " + member;
        }
        if (!parts[0].equals(base)) {
            return "the file is " + base + ".java, not " + parts[0];
        }
        // a declaration: modifiers and a type, then the name (a call has a '.' or '=' before it)
        final Pattern method = Pattern.compile("(?m)^\\s*(?:@\\w+(?:\\([^)]*\\))?\\s+)*(?:[\\w<>\\[\\],?]+\\s+)+"
            + Pattern.quote(member) + "\\s*\\(");
        final Pattern type = Pattern.compile("\\b(class|record|interface|enum)\\s+" + Pattern.quote(member) + "\\b");
        final Pattern constant = Pattern.compile("\\b" + Pattern.quote(member) + "\\s*=");
        if (method.matcher(source).find() || type.matcher(source).find() || constant.matcher(source).find()) {
            return null;
        }
        return "no member " + member + " declared";
    }

    /** @return the GitHub anchors of a Markdown file's headings */
    static Set<String> anchors(final Path md) throws IOException {
        final Set<String> out = new HashSet<>();
        for (final String line : Files.readAllLines(md)) {
            if (line.startsWith("#")) {
                final String title = line.replaceFirst("^#+\\s*", "");
                out.add(title.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-'));
            }
        }
        return out;
    }

    /**
     * The repository stands alone: no link or path in README.md or docs/ points outside it. A
     * relative link must resolve inside the repository, an absolute one is refused (web links are
     * allowed), and a path written as code must name something in the repository, a system path
     * ({@code /dev/shm}), a build output ({@code target/}) or a musl source file.
     */
    @Test
    void noLinkOrPathLeavesTheRepository() throws IOException {
        final List<String> outside = new ArrayList<>();
        outside.addAll(outsideReferences(Path.of("README.md")));
        for (final Path doc : chapters()) {
            outside.addAll(outsideReferences(doc));
        }
        assertEquals(List.of(), outside);
    }

    @Test
    void theOutsideCheckRefusesLinksAndPathsBeyondTheRepository() {
        final Path doc = DOCS.resolve("README.md");
        final String refused = String.join("\n",
            "[a](../../elsewhere/notes.md)", "[b](/etc/notes.md)", "[c](file:///tmp/x.md)",
            "`../../elsewhere/seeds/`", "`notes/design.md`", "`/home/someone/notes.md`", "`design-notes.md`");
        assertEquals(7, outsideReferences(doc, refused).size(), outsideReferences(doc, refused).toString());
        final String allowed = String.join("\n",
            "[a](https://example.org/x)", "[b](01-futex.md#the-contract)", "[c](../README.md)",
            "`src/test/c/syncfile_interop.c`", "`/dev/shm/sem.NAME`", "`src/thread/__wait.c`",
            "`include/semaphore.h`", "`tools/target/pthread4j-tools.jar`", "`lock/unlock`", "`CHANGELOG.md`");
        assertEquals(List.of(), outsideReferences(doc, allowed));
    }

    static List<String> outsideReferences(final Path doc) throws IOException {
        return outsideReferences(doc, Files.readString(doc));
    }

    static List<String> outsideReferences(final Path doc, final String text) {
        final List<String> out = new ArrayList<>();
        final Path dir = ROOT.resolve(doc).getParent();
        final Matcher link = LINK.matcher(text);
        while (link.find()) {
            final String target = link.group(2);
            if (target.startsWith("http://") || target.startsWith("https://") || target.startsWith("#")) {
                continue;
            }
            final String file = target.replaceFirst("#.*", "");
            if (file.startsWith("/") || file.startsWith("~") || file.matches("^[A-Za-z][\\w+.-]*:.*")) {
                out.add(doc + ": link " + target + " is absolute");
            } else if (!dir.resolve(file).normalize().startsWith(ROOT)) {
                out.add(doc + ": link " + target + " leaves the repository");
            }
        }
        final Matcher code = CODE_PATH.matcher(text);
        while (code.find()) {
            final String path = code.group(1);
            if (path.contains("://") || SYSTEM_PATH.matcher(path).matches() || MUSL_PATH.matcher(path).matches()
                || path.matches("(.*/)?target/.*")) {
                continue;
            }
            if (path.startsWith("/") || path.startsWith("~")) {
                out.add(doc + ": `" + path + "` is an absolute path outside the repository");
            } else if (!dir.resolve(path).normalize().startsWith(ROOT)) {
                out.add(doc + ": `" + path + "` leaves the repository");
            } else if (!Files.exists(dir.resolve(path)) && !Files.exists(ROOT.resolve(path))) {
                out.add(doc + ": `" + path + "` is not in the repository");
            }
        }
        return out;
    }

    /** A test named as code: {@code `SomeTest`}, {@code `SomeTest.method`} or {@code `SomeTest#method`}. */
    private static final Pattern TEST_NAME = Pattern.compile("`([A-Z]\\w*Test)(?:[.#](\\w+))?(?:\\([^`]*\\))?`");
    /** Where tests live: JUnit in both modules, jcstress. */
    private static final List<Path> TEST_ROOTS = List.of(Path.of("src/test/java"), Path.of("src/jcstress/java"),
        Path.of("tools/src/test/java"));

    @Test
    void everyTestAChapterNamesExistsWithItsMethod() throws IOException {
        final List<String> missing = new ArrayList<>();
        int checked = 0;
        for (final Path doc : chapters()) {
            final Matcher m = TEST_NAME.matcher(Files.readString(doc));
            while (m.find()) {
                checked++;
                final Path file = testFile(m.group(1));
                if (file == null) {
                    missing.add(doc + ": no test class " + m.group(1));
                } else if (m.group(2) != null) {
                    final String problem = checkMember(file, m.group(1) + "." + m.group(2));
                    if (problem != null) {
                        missing.add(doc + ": " + m.group() + ": " + problem);
                    }
                }
            }
        }
        assertTrue(checked > 100, "too few test names checked: " + checked);
        assertEquals(List.of(), missing);
    }

    /** @return the file declaring test class {@code name}, or null */
    static Path testFile(final String name) throws IOException {
        final Path root = ROOT.getFileName().toString().equals("core") ? ROOT.getParent() : ROOT;
        for (final Path dir : TEST_ROOTS) {
            final Path d = Files.isDirectory(dir) ? dir : root.resolve(dir);
            if (!Files.isDirectory(d)) {
                continue;
            }
            try (Stream<Path> s = Files.walk(d)) {
                final Path found = s.filter(p -> p.getFileName().toString().equals(name + ".java")).findFirst().orElse(null);
                if (found != null) {
                    return found;
                }
            }
        }
        return null;
    }

    /** No chapter, and not the README, mentions a file outside the repository that is not public. */
    @Test
    void noTextNamesAPrivateFileOutsideTheRepository() throws IOException {
        final Pattern outside = Pattern.compile("\\.\\./shared|(?<![\\w.])shared/(?!memory)|/work/|musl-reference\\.md|seeds/");
        final List<String> found = new ArrayList<>();
        final List<Path> docs = new ArrayList<>(chapters());
        docs.add(Path.of("README.md"));
        for (final Path doc : docs) {
            final Matcher m = outside.matcher(Files.readString(doc));
            while (m.find()) {
                found.add(doc + ": " + m.group());
            }
        }
        assertEquals(List.of(), found);
        assertTrue(outside.matcher("see ../shared/notes.md").find());
        assertTrue(outside.matcher("in musl-reference.md").find());
    }

    @Test
    void theIndexListsEveryChapter() throws IOException {
        final String index = Files.readString(DOCS.resolve("README.md"));
        final List<Path> chapters = chapters().stream()
            .filter(p -> p.getFileName().toString().matches("\\d\\d-.*\\.md")).toList();
        assertEquals(9, chapters.size(), chapters.toString());
        assertTrue(index.contains("](glossary.md)"), "docs/README.md does not link the glossary");
        for (final Path c : chapters) {
            assertTrue(index.contains("](" + c.getFileName() + ")"), "docs/README.md does not link " + c.getFileName());
        }
        assertFalse(index.contains("TRACE_FIGURES"), "the trace figures were not filled in");
    }

    @Test
    void theCheckerRefusesWhatDoesNotExist() throws IOException {
        final Path mutex = Path.of("src/main/java/org/pthread4j/Mutex.java");
        assertEquals(null, checkMember(mutex, "Mutex.lockSlow"));
        assertEquals(null, checkMember(mutex, "Mutex"));
        assertEquals("no member lockFast declared", checkMember(mutex, "Mutex.lockFast"));
        assertEquals("no member getAndSet declared", checkMember(mutex, "Mutex.getAndSet"), "a call is not a declaration");
        assertEquals(null, checkMember(Path.of("src/test/java/org/pthread4j/MutexTest.java"),
            "MutexTest.blockedLockIsWokenByUnlock"));
        assertTrue(anchors(DOCS.resolve("02-mutex.md")).contains("2-the-bit-that-a-new-owner-drops"));
        assertEquals(null, testFile("NoSuchTest"));
        assertTrue(testFile("DemoTraceCommandTest") != null, "a tools test is found");
        assertTrue(testFile("FutexWakeupTest") != null, "a jcstress test is found");
        final Matcher m = TEST_NAME.matcher("`MutexTest#blockedLockIsWokenByUnlock` and `SemTest.post(x)`");
        assertTrue(m.find() && m.group(2).equals("blockedLockIsWokenByUnlock"));
        assertTrue(m.find() && m.group(1).equals("SemTest") && m.group(2).equals("post"));
    }
}
