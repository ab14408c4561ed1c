# Sourced by every experiment (through lib.sh or lib/cluster.sh): picks a JDK 21+ (JAVA_HOME first, else the
# newest under /usr/lib/jvm) and builds target/loan-runtime.jar when it is missing or older than the sources.

find_java() {
    local candidate version best="" best_version=0
    for candidate in "${JAVA_HOME:-}/bin/java" /usr/lib/jvm/*/bin/java; do
        [ -x "$candidate" ] || continue
        version=$("$candidate" -version 2>&1 | head -1 | sed -E 's/.*version "([0-9]+).*/\1/')
        [[ "$version" =~ ^[0-9]+$ ]] || continue
        if [ "$candidate" = "${JAVA_HOME:-}/bin/java" ] && [ "$version" -ge 21 ]; then
            best=$candidate; break
        fi
        if [ "$version" -ge 21 ] && [ "$version" -gt "$best_version" ]; then
            best=$candidate; best_version=$version
        fi
    done
    if [ -z "$best" ]; then
        echo "no JDK 21 or newer found (set JAVA_HOME)" >&2
        exit 1
    fi
    echo "$best"
}

JAVA=$(find_java)
export JAVA_HOME
JAVA_HOME=$(dirname "$(dirname "$JAVA")")
JAR=target/loan-runtime.jar

# Builds when the jar is missing or older than any source file.
build_once() {
    if [ ! -f "$JAR" ] || [ -n "$(find src pom.xml -newer "$JAR" -print -quit)" ]; then
        echo "building $JAR ..."
        PATH="$JAVA_HOME/bin:$PATH" mvn -q -B -DskipTests package
    fi
}

