package dev.loanruntime.loan;

import java.util.List;

import io.helidon.http.Status;
import io.helidon.webserver.http.HttpRules;
import io.helidon.webserver.http.HttpService;
import io.helidon.webserver.http.ServerRequest;
import io.helidon.webserver.http.ServerResponse;

import dev.loanruntime.http.Json;
import dev.loanruntime.http.Routes;

/** {@code GET /books}: the cheap catalog line, the "light request" of every measurement. */
public final class BooksService implements HttpService {
    private static final Books SHELVES = new Books(List.of(
            new Book("978-0262033848", "Introduction to Algorithms", "R-12")));
    /** The shelves never change, so they are serialized once: /books is the request every measurement repeats. */
    private static final byte[] SHELVES_JSON = Json.bytes(SHELVES);

    @Override
    public void routing(HttpRules rules) {
        Routes.get(rules, "/books", "the cheap catalog line, the light request of every measurement",
                this::booksHandler);
    }

    private void booksHandler(ServerRequest req, ServerResponse res) {
        Json.sendBytes(res, Status.OK_200, SHELVES_JSON);
    }

    record Book(String isbn, String title, String shelf) {
    }

    record Books(List<Book> books) {
    }
}
