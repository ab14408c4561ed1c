# shellcheck shell=bash
# The JDK and the jar. Part of experiments/lib (source init.sh, which calls use_jdk).
#
# Sets JAVA_HOME (exported: Maven and the JVMs started here use it), JAVA ($JAVA_HOME/bin/java) and JAR
# (target/loan-runtime.jar, relative to the project root).

JAR=target/loan-runtime.jar

# java_major JAVA: the feature version (17, 21, 25 ...) of the java binary JAVA, from its java.specification.version.
java_major() {
  "$1" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java\.specification\.version = //p' | head -n 1
}

# _jdk_major HOME: the feature version of HOME's java when HOME also holds a javac, else 0.
_jdk_major() {
  local major=""
  if [ -x "$1/bin/java" ] && [ -x "$1/bin/javac" ]; then
    major=$(java_major "$1/bin/java")
  fi
  [[ $major =~ ^[0-9]+$ ]] && echo "$major" || echo 0
}

# find_jdk: prints the home of a JDK 21 or newer (java and javac; the build and the source-file peers need javac):
# $JAVA_HOME when it is one, else the newest under /usr/lib/jvm. Status 1 when there is none.
find_jdk() {
  local home best="" best_major=20 major
  if [ -n "${JAVA_HOME:-}" ] && [ "$(_jdk_major "$JAVA_HOME")" -ge 21 ]; then
    echo "${JAVA_HOME%/}"
    return 0
  fi
  for home in /usr/lib/jvm/*; do
    major=$(_jdk_major "$home")
    if [ "$major" -gt "$best_major" ]; then
      best=$home
      best_major=$major
    fi
  done
  [ -n "$best" ] && echo "$best"
}

# use_jdk: sets and exports JAVA_HOME (find_jdk) and sets JAVA; exits with status 1, saying where it looked, when
# there is no JDK 21 or newer.
use_jdk() {
  local home
  if ! home=$(find_jdk); then
    echo "no JDK 21 or newer found (looked at JAVA_HOME and /usr/lib/jvm/*; set JAVA_HOME)" >&2
    exit 1
  fi
  export JAVA_HOME=$home
  JAVA=$JAVA_HOME/bin/java
}

# build_once: builds $JAR (mvn -q -B -DskipTests package, with this JDK) when it is missing or older than any file
# under src/main/ or pom.xml; otherwise does nothing. The jar is touched after the build: Maven leaves an up-to-date jar
# as it was, which would otherwise look stale again to the next script.
build_once() {
  if [ ! -f "$JAR" ] || [ -n "$(find src/main pom.xml -newer "$JAR" -print -quit)" ]; then
    echo "building $JAR ..."
    PATH="$JAVA_HOME/bin:$PATH" mvn -q -B -DskipTests package
    touch "$JAR"
  fi
}

# _copy_libs POM DIR WHAT: `mvn -f POM package` (which copies the libraries POM names into DIR) when DIR is missing
# or older than POM; otherwise nothing.
_copy_libs() {
  if [ ! -f "$2/.copied" ] || [ "$1" -nt "$2/.copied" ]; then
    echo "copying $3 into $2 ..."
    rm -rf "$2"
    PATH="$JAVA_HOME/bin:$PATH" mvn -q -B -ntp -f "$1" package
    touch "$2/.copied"
  fi
}

# netty_libs: the Netty peer's libraries (experiments/peers/netty/pom.xml) in target/netty-libs/. Netty is the
# experiments' dependency, not the server's.
NETTY_LIBS=target/netty-libs
netty_libs() {
  _copy_libs experiments/peers/netty/pom.xml "$NETTY_LIBS" "Netty's libraries"
}

# browser_libs: Selenium (experiments/peers/browser/pom.xml) in target/browser-libs/; experiment 16 drives Chromium
# with it.
BROWSER_LIBS=target/browser-libs
browser_libs() {
  _copy_libs experiments/peers/browser/pom.xml "$BROWSER_LIBS" "Selenium's libraries"
}

# loan_runtime ARG...: runs the project's command line (java -jar $JAR ARG...) in the foreground.
loan_runtime() {
  "$JAVA" -jar "$JAR" "$@"
}
