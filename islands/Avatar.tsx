import { useEffect, useRef, useState } from "react";
import { AVATAR_SIZES, type AvatarSize } from "../lib/constants.ts";
import { initials } from "./lib/initials.ts";

/**
 * Tailwind classes for each avatar size (SPEC.md section 9): a box of AVATAR_SIZES[size] px
 * (size-N is N × 4 px) and a text size for the initials. Written out in full so Tailwind finds them.
 */
export const AVATAR_SIZE_CLASSES: Record<AvatarSize, { box: string; text: string }> = {
  "3xs": { box: "size-4", text: "text-[0.5rem]" }, // 16 px
  "2xs": { box: "size-5", text: "text-[0.5625rem]" }, // 20 px
  xs: { box: "size-6", text: "text-[0.625rem]" }, // 24 px
  sm: { box: "size-7", text: "text-[0.6875rem]" }, // 28 px
  md: { box: "size-8", text: "text-xs" }, // 32 px
  lg: { box: "size-9", text: "text-sm" }, // 36 px
  xl: { box: "size-10", text: "text-sm" }, // 40 px
  "2xl": { box: "size-11", text: "text-base" }, // 44 px
  "3xl": { box: "size-12", text: "text-lg" }, // 48 px
};

const BASE =
  "inline-flex shrink-0 select-none items-center justify-center overflow-hidden rounded-full bg-neutral-200 align-middle font-semibold leading-none text-neutral-800 dark:bg-neutral-700 dark:text-neutral-100";

/**
 * A round avatar. Shows the image; when there is none, or it fails to load (also before hydration:
 * a server-rendered <img> can fail before React listens for its error), shows the initials of the
 * alt text instead, as role="img" labelled with the alt text. An empty alt makes it decorative.
 */
export default function Avatar({ src, alt, size = "md" }: { src?: string | null; alt: string; size?: AvatarSize }) {
  // The src that failed, so a new src is tried again without an effect to reset the state.
  const [failedSrc, setFailedSrc] = useState<string | null>(null);
  const imgRef = useRef<HTMLImageElement>(null);
  const showImage = !!src && failedSrc !== src;

  useEffect(() => {
    const img = imgRef.current;
    // Broken before hydration: loading finished (complete) with no picture.
    if (src && img && img.complete && img.naturalWidth === 0) setFailedSrc(src);
  }, [src]);

  const sizeClasses = AVATAR_SIZE_CLASSES[size] ?? AVATAR_SIZE_CLASSES.md;
  const px = AVATAR_SIZES[size] ?? AVATAR_SIZES.md;
  const className = `${BASE} ${sizeClasses.box} ${sizeClasses.text}`;

  if (showImage) {
    return (
      <span className={className} data-size={size}>
        <img
          ref={imgRef}
          src={src}
          alt={alt}
          width={px}
          height={px}
          decoding="async"
          className="size-full object-cover"
          onError={() => setFailedSrc(src)}
        />
      </span>
    );
  }

  const text = initials(alt);
  if (!alt.trim()) {
    return <span className={className} data-size={size} aria-hidden="true" />;
  }
  return (
    <span className={className} data-size={size} role="img" aria-label={alt}>
      <span aria-hidden="true">{text}</span>
    </span>
  );
}
