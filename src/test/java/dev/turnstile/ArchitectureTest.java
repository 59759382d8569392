package dev.turnstile;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.methods;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/**
 * The import graph of issue 10: two wings ({@code rental}, {@code booking}) over a floor ({@code problem}, {@code retry},
 * {@code idempotency}, {@code json}, {@code identity}, {@code config}) that neither wing's internals leak into; HTTP
 * known to resources alone; the dev/test launchers ({@code local}) depended on by nothing. Main classes only: a test
 * may reach anywhere.
 */
@AnalyzeClasses(packages = "dev.turnstile", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    private static final String RENTAL = "dev.turnstile.rental..";
    private static final String BOOKING = "dev.turnstile.booking..";
    private static final String[] FLOOR = { "dev.turnstile.problem..", "dev.turnstile.retry..",
            "dev.turnstile.idempotency..", "dev.turnstile.json..", "dev.turnstile.identity..", "dev.turnstile.config.." };

    @ArchTest
    static final ArchRule rentalDoesNotKnowBooking = noClasses().that().resideInAPackage(RENTAL)
            .should().dependOnClassesThat().resideInAPackage(BOOKING);

    @ArchTest
    static final ArchRule bookingDoesNotKnowRental = noClasses().that().resideInAPackage(BOOKING)
            .should().dependOnClassesThat().resideInAPackage(RENTAL);

    @ArchTest
    static final ArchRule theFloorKnowsNoWing = noClasses().that().resideInAnyPackage(FLOOR)
            .should().dependOnClassesThat().resideInAnyPackage(RENTAL, BOOKING);

    @ArchTest
    static final ArchRule nothingOutsideRentalImportsIt = noClasses().that().resideOutsideOfPackage(RENTAL)
            .should().dependOnClassesThat().resideInAPackage(RENTAL);

    @ArchTest
    static final ArchRule nothingOutsideBookingImportsIt = noClasses().that().resideOutsideOfPackage(BOOKING)
            .should().dependOnClassesThat().resideInAPackage(BOOKING);

    /**
     * The HTTP edge: JAX-RS belongs to the resources ({@code *Resource}), to the converters that read their query
     * parameters into enums, and to the problem mappers, which turn exceptions into HTTP answers. Services,
     * repositories and everything else take and return plain values.
     */
    @ArchTest
    static final ArchRule onlyTheHttpEdgeKnowsHttp = noClasses()
            .that().haveSimpleNameNotEndingWith("Resource")
            .and().doNotImplement(jakarta.ws.rs.ext.ParamConverterProvider.class)
            .and().doNotImplement(jakarta.ws.rs.ext.ParamConverter.class)
            .and().resideOutsideOfPackage("dev.turnstile.problem..")
            .should().dependOnClassesThat().resideInAPackage("jakarta.ws.rs..");

    /**
     * Settings are checked by SmallRye Config converters ({@code config/CheckedValues}), not Bean Validation: one
     * constraint on a mapping makes Quarkus build a second validator factory at every start (0.5-0.6 s here).
     */
    @ArchTest
    static final ArchRule configMappingsCarryNoConstraints = noClasses()
            .that(DescribedPredicate.describe("are config mappings or their groups", ArchitectureTest::inAConfigMapping))
            .should().dependOnClassesThat(DescribedPredicate.describe("are Bean Validation constraints or @Valid",
                    type -> type.isAnnotatedWith(jakarta.validation.Constraint.class)
                            || type.isEquivalentTo(jakarta.validation.Valid.class)));

    private static boolean inAConfigMapping(JavaClass type) {
        return type.isAnnotatedWith(io.smallrye.config.ConfigMapping.class)
                || type.getEnclosingClass().map(ArchitectureTest::inAConfigMapping).orElse(false);
    }

    @ArchTest
    static final ArchRule nothingDependsOnTheLocalLaunchers = noClasses().that().resideOutsideOfPackage("dev.turnstile.local..")
            .should().dependOnClassesThat().resideInAPackage("dev.turnstile.local..");

    /**
     * Issue 11: every route says who may call it. deny-unannotated-endpoints already refuses a route that forgets;
     * this rule makes the build say which one.
     */
    @ArchTest
    static final ArchRule everyRouteNamesItsRoles = methods()
            .that().areAnnotatedWith(jakarta.ws.rs.GET.class).or().areAnnotatedWith(jakarta.ws.rs.POST.class)
            .or().areAnnotatedWith(jakarta.ws.rs.PUT.class).or().areAnnotatedWith(jakarta.ws.rs.PATCH.class)
            .or().areAnnotatedWith(jakarta.ws.rs.DELETE.class)
            .should().beAnnotatedWith(jakarta.annotation.security.RolesAllowed.class);
}
