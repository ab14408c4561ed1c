package dev.loanruntime.serve;

import java.io.IOException;
import java.lang.reflect.Field;
import java.nio.channels.ServerSocketChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import io.helidon.webserver.WebServer;

/**
 * Stops a Helidon 4.5 WebServer from accepting without touching the connections it accepted. Helidon's own stop
 * closes the listening socket and at once interrupts every connection that is reading a request's head: a
 * connection accepted a moment before, whose request has just arrived, is closed with the request unread, and its
 * client gets a reset. Helidon has no public "stop accepting only": closing the listening socket from outside makes
 * its accept loop call that same stop. So this marks each listener as no longer running first (its accept loop
 * then ends quietly when the socket closes), closes the socket, and lets the requests already accepted be answered;
 * {@link #stop()} afterwards marks the listeners running again and runs Helidon's stop, which now finds only idle
 * connections (nothing unread: they end with a FIN).
 *
 * <p>Reads Helidon's private fields ({@code LoomServer.listeners}, {@code ServerListener.running} and
 * {@code serverSocket}); where they are not as in 4.5, {@link #stopAccepting()} says so and does nothing, and the
 * stop is Helidon's alone. With {@code net.ipv4.tcp_migrate_req=1} the kernel hands the closed socket's queue of
 * connections not yet accepted to the other listeners of the port ({@code SO_REUSEPORT}); with 0 it resets them.
 */
final class AcceptStop {
    private final WebServer server;
    private final List<Object> listeners = new ArrayList<>();
    private Field running;
    private Field socket;

    AcceptStop(WebServer server) {
        this.server = server;
    }

    /**
     * Closes every listening socket of the server without stopping it. Returns why it could not, or null when it
     * did. Any thread; returns at once.
     */
    synchronized String stopAccepting() {
        try {
            Field listenersField = server.getClass().getDeclaredField("listeners");
            listenersField.setAccessible(true);
            for (Object listener : ((Map<?, ?>) listenersField.get(server)).values()) {
                if (running == null) {
                    running = listener.getClass().getDeclaredField("running");
                    running.setAccessible(true);
                    socket = listener.getClass().getDeclaredField("serverSocket");
                    socket.setAccessible(true);
                }
                listeners.add(listener);
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            listeners.clear();
            return "Helidon's listeners are not as in 4.5 (" + e + "): its own stop closes them";
        }
        for (Object listener : listeners) {
            try {
                running.setBoolean(listener, false);
                ((ServerSocketChannel) socket.get(listener)).close();
            } catch (IllegalAccessException | IOException e) {
                return "cannot close a listening socket: " + e.getMessage();
            }
        }
        return null;
    }

    /** Helidon's stop, after {@link #stopAccepting()} or instead of it: idle connections end, executors stop. */
    synchronized void stop() {
        for (Object listener : listeners) {
            try {
                running.setBoolean(listener, true);    // else its stop returns at once and leaves its threads
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        server.stop();
    }
}
