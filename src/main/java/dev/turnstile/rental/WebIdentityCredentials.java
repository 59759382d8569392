package dev.turnstile.rental;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * IRSA on EKS (deploy/kubernetes): the AWS SDK's default credentials chain trades the pod's web identity token with
 * STS through a factory it loads by name ({@code WebIdentityCredentialsUtils}), so the native image must keep that
 * class and its constructor; the sts module itself is in the pom. Nothing in Turnstile refers to it otherwise.
 */
@RegisterForReflection(classNames = "software.amazon.awssdk.services.sts.internal.StsWebIdentityCredentialsProviderFactory")
final class WebIdentityCredentials {

    private WebIdentityCredentials() {
    }
}
