#!/bin/sh
# Rebuilds the app icons from forager.svg (Debian: apt-get install librsvg2-bin icoutils icnsutils).
set -eu
cd "$(dirname "$0")"
mkdir -p png
for size in 16 24 32 48 64 128 256 512 1024; do
  rsvg-convert -w "$size" -h "$size" forager.svg -o "png/${size}x${size}.png"
done
# Windows: small sizes as bitmaps, 256 as an embedded PNG.
icotool -c -o forager.ico png/16x16.png png/24x24.png png/32x32.png png/48x48.png png/64x64.png png/128x128.png -r png/256x256.png
png2icns forager.icns png/16x16.png png/32x32.png png/48x48.png png/128x128.png png/256x256.png png/512x512.png png/1024x1024.png
