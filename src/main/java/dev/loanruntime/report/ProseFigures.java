package dev.loanruntime.report;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Figures typed into prose. A number with a unit of time, rate, ratio or share ({@code 318 ms}, {@code 2,878 req/s},
 * {@code 1.58×}, {@code 12 %}, {@code 0.62 cores}) outside a generated block is a measurement someone copied by hand:
 * it does not change when the record does, so it ends up saying more than the record. Settings are numbers with
 * units too ({@code --kill-timeout} (15 s)); they are told apart by a list of phrases, per doc, that are settings
 * (docs/settings-in-prose.txt), and by code: what is in a code span or a fenced block is what a user types.
 */
final class ProseFigures {
    /** A number and a unit of time, rate, ratio or share; not inside a word, a path, a key or a version. */
    static final Pattern FIGURE = Pattern.compile("(?<![\\w.\\-/=])(\\d[\\d,]*(?:\\.\\d+)?)(\\s?)"
            + "(ms|µs|us|ns|s|seconds?|minutes?|min|hours?|req/s|/s|×|x|%|cores?|CPUs?)(?![\\w/])");
    private static final Pattern HTTP_STATUSES = Pattern.compile("[1-5]\\d\\d");
    private static final Pattern FENCED = Pattern.compile("```.*?```", Pattern.DOTALL);
    private static final Pattern CODE_SPAN = Pattern.compile("`[^`\\n]*`");
    private static final Pattern LINK_TARGET = Pattern.compile("\\]\\([^)]*\\)");

    private ProseFigures() {
    }

    /**
     * Every figure typed into {@code text} outside generated blocks, code and the doc's {@code settings} phrases, as
     * "DOC:LINE: 'FIGURE' in '...context...'"; and every settings phrase the doc no longer holds.
     */
    static List<String> problems(String doc, String text, List<String> settings) {
        List<String> problems = new ArrayList<>();
        String prose = blank(text, GeneratedDocs.BLOCK);
        for (String phrase : settings) {
            if (!prose.contains(phrase)) {
                problems.add(doc + ": the setting '" + phrase + "' (docs/settings-in-prose.txt) is not in its prose");
            }
            prose = prose.replace(phrase, " ".repeat(phrase.length()));
        }
        prose = blank(blank(blank(prose, FENCED), CODE_SPAN), LINK_TARGET);
        String[] lines = prose.split("\n", -1);
        String[] original = text.split("\n", -1);
        for (int i = 0; i < lines.length; i++) {
            Matcher m = FIGURE.matcher(lines[i]);
            while (m.find()) {
                boolean statusPlural = m.group(3).equals("s") && m.group(2).isEmpty()
                        && HTTP_STATUSES.matcher(m.group(1)).matches();
                if (!statusPlural) {
                    problems.add(doc + ":" + (i + 1) + ": '" + m.group() + "' is a figure typed into prose ('"
                            + context(original[i], m.start(), m.end()) + "'): generate it from its record, or list"
                            + " it in docs/settings-in-prose.txt if it is a setting");
                }
            }
        }
        return problems;
    }

    /** The allow-list's phrases by doc: lines "DOC: PHRASE"; '#' starts a comment line. */
    static Map<String, List<String>> settings(String allowList) {
        Map<String, List<String>> byDoc = new java.util.TreeMap<>();
        for (String line : allowList.split("\n")) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(": ");
            if (colon < 0) {
                throw new IllegalArgumentException("docs/settings-in-prose.txt: '" + line + "' is not 'DOC: PHRASE'");
            }
            byDoc.computeIfAbsent(line.substring(0, colon), d -> new ArrayList<>()).add(line.substring(colon + 2));
        }
        return byDoc;
    }

    /** {@code text} with every match of {@code p} turned into spaces, its newlines kept (lines keep their numbers). */
    private static String blank(String text, Pattern p) {
        Matcher m = p.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            m.appendReplacement(out, Matcher.quoteReplacement(m.group().replaceAll("[^\\n]", " ")));
        }
        m.appendTail(out);
        return out.toString();
    }

    private static String context(String line, int start, int end) {
        return line.substring(Math.max(0, start - 40), Math.min(line.length(), end + 20)).strip();
    }
}
