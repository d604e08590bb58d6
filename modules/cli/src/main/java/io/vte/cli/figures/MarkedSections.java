package io.vte.cli.figures;

/**
 * The generated parts of a Markdown page: each lies between {@code <!-- figures:NAME:begin -->} and
 * {@code <!-- figures:NAME:end -->}, and only that part is replaced.
 */
final class MarkedSections {

  private MarkedSections() {}

  /**
   * @param page the page's text
   * @param name the part's name
   * @param body the part's new text
   * @return the page with the part replaced
   * @throws IllegalArgumentException when the page lacks either marker, naming it
   */
  static String replace(String page, String name, String body) {
    String begin = "<!-- figures:" + name + ":begin -->";
    String end = "<!-- figures:" + name + ":end -->";
    int from = page.indexOf(begin);
    int to = page.indexOf(end, Math.max(from, 0));
    if (from < 0 || to < 0) {
      throw new IllegalArgumentException("the page has no '" + begin + "' ... '" + end + "'");
    }
    return page.substring(0, from + begin.length())
        + "\n"
        + body.strip()
        + "\n"
        + page.substring(to);
  }
}
