// EPUBCheck for many books in one JVM, for the test suite (tests/testsuite/common/batch.rs).
//
// A JVM start costs EPUBCheck about 10 s of CPU on a busy two-core machine (class loading,
// compiling its schemas); a second book in the same JVM costs a fraction of a second. Each
// line on stdin is "BOOK<TAB>REPORT": the book is checked exactly as `java -jar epubcheck.jar
// BOOK --json REPORT` checks it (the same entry point, a fresh checker per book), and one line
// answers it on stdout: "ok<TAB>EXIT-CODE" or "error<TAB>WHAT". EPUBCheck's own console output
// is discarded (the JSON report holds every message). The program ends when stdin closes.
//
// Run by the source-file launcher (`java -cp epubcheck.jar EpubcheckBatch.java`), so it needs a
// JDK; without one the suite falls back to one JVM per book.

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

public final class EpubcheckBatch {
    public static void main(String[] args) throws IOException {
        PrintStream reply =
                new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream sink = new PrintStream(OutputStream.nullOutputStream());
        System.setOut(sink);
        System.setErr(sink);
        BufferedReader requests =
                new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        reply.println("ready");
        String line;
        while ((line = requests.readLine()) != null) {
            String[] parts = line.split("\t", -1);
            if (parts.length != 2) {
                reply.println("error\tmalformed request");
                continue;
            }
            try {
                String[] cli = {parts[0], "--json", parts[1], "--quiet"};
                int code = new com.adobe.epubcheck.tool.EpubChecker().run(cli);
                reply.println("ok\t" + code);
            } catch (Throwable t) {
                reply.println("error\t" + String.valueOf(t).replace('\n', ' ').replace('\t', ' '));
            }
        }
    }
}
