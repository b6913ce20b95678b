package dev.deja.node;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a no-argument method whose result the checker may read as a column of a declared table (the paper's
 * "APIs to explicitly expose states"). The method must not change the object or call the {@link Env}: the
 * checker calls it after handlers, at any time, any number of times.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Exposed {
}
