package dev.loanruntime.cli;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What a set of options picocli filled in can do by reflection alone, whatever the options: its values in order, the
 * command line that makes them again, and a copy of them onto another instance. The options are the {@code @Option}
 * fields of an object and, in the order they are declared, of its {@code @Mixin} sections, at any depth.
 */
public final class OptionFields {
    private OptionFields() {
    }

    /** Every {@code @Option} field of {@code type} and its {@code @Mixin} sections, in the order they are declared. */
    public static List<Field> fields(Class<?> type) {
        List<Field> fields = new ArrayList<>();
        for (Field field : type.getDeclaredFields()) {
            if (field.isAnnotationPresent(Mixin.class)) {
                fields.addAll(fields(field.getType()));
            } else if (field.isAnnotationPresent(Option.class)) {
                fields.add(field);
            }
        }
        return fields;
    }

    /** Every {@code @Option} field's value of {@code options} and its sections, in the order they are declared. */
    public static List<Object> values(Object options) {
        List<Object> values = new ArrayList<>();
        forEach(options, (holder, field) -> values.add(get(field, holder)));
        return values;
    }

    /**
     * Every option with its value, in the form picocli reads: {@code --host 127.0.0.1 --port 8430 ...}. An option
     * without a value (one whose default is decided later) is left out, so that it gets the same default.
     */
    public static List<String> toArgs(Object options) {
        List<String> args = new ArrayList<>();
        forEach(options, (holder, field) -> {
            Object value = get(field, holder);
            if (value != null) {
                args.add(field.getAnnotation(Option.class).names()[0]);
                args.add(format(field, value));
            }
        });
        return args;
    }

    /**
     * Copies onto {@code to} every option's value of {@code from} (an instance of the same class) but those
     * {@code named}: the value as it is, not as its text reads back (a store's text leaves its password out).
     */
    public static void copyExcept(Object from, Object to, Set<String> named) {
        if (from.getClass() != to.getClass()) {
            throw new IllegalArgumentException(from.getClass() + " is not " + to.getClass());
        }
        for (Field field : from.getClass().getDeclaredFields()) {
            if (field.isAnnotationPresent(Mixin.class)) {
                copyExcept(get(field, from), get(field, to), named);
            } else if (field.isAnnotationPresent(Option.class)
                    && Arrays.stream(field.getAnnotation(Option.class).names()).noneMatch(named::contains)) {
                try {
                    field.set(to, get(field, from));
                } catch (IllegalAccessException e) {
                    throw new IllegalStateException("cannot copy " + field.getName(), e);
                }
            }
        }
    }

    private interface FieldVisitor {
        void visit(Object holder, Field field);
    }

    private static void forEach(Object options, FieldVisitor visitor) {
        for (Field field : options.getClass().getDeclaredFields()) {
            if (field.isAnnotationPresent(Mixin.class)) {
                forEach(get(field, options), visitor);
            } else if (field.isAnnotationPresent(Option.class)) {
                visitor.visit(options, field);
            }
        }
    }

    /** The value of {@code field} in {@code holder}, however it is declared. */
    static Object get(Field field, Object holder) {
        try {
            field.setAccessible(true);
            return field.get(holder);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException("cannot read " + field.getName(), e);
        }
    }

    /** A value as its option's converter writes it back, or as text for the types picocli converts itself. */
    @SuppressWarnings("unchecked")
    private static String format(Field field, Object value) {
        Class<? extends CommandLine.ITypeConverter<?>>[] converters = field.getAnnotation(Option.class).converter();
        if (converters.length == 1 && Converters.Format.class.isAssignableFrom(converters[0])) {
            try {
                return ((Converters.Format<Object>) converters[0].getDeclaredConstructor().newInstance()).format(value);
            } catch (ReflectiveOperationException e) {
                throw new IllegalStateException("cannot make " + converters[0].getName(), e);
            }
        }
        return String.valueOf(value);
    }
}
