#!/usr/bin/python3
"""Renders the OCR end-to-end test images from known strings (tests/ocr/ocr_e2e_test.cpp).

Usage: render_text_images.py OUT_DIR
Writes OUT_DIR/img_NN.png and OUT_DIR/manifest.json: a list of {"file", "lines": [{"text", "box": [x0, y0, x1,
y1]}]}, the box being the rendered ink extent of the line in pixels.  Deterministic: the same images every run
(fixed seed, Debian fonts fonts-dejavu-core/-extra, fonts-liberation2, fonts-wqy-microhei; python3-pil).
The set: 24 images, 1-5 lines each, 7 fonts, text heights 18-44 px, dark on light and light on dark, Latin
sentences, digits (prices, dates, phone numbers) and Chinese lines; nothing here is tuned to the model.
"""
import json
import os
import random
import sys

from PIL import Image, ImageDraw, ImageFont

FONTS = {
    "sans": "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "sans-bold": "/usr/share/fonts/truetype/dejavu/DejaVuSans-Bold.ttf",
    "serif": "/usr/share/fonts/truetype/dejavu/DejaVuSerif.ttf",
    "mono": "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf",
    "liberation-sans": "/usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf",
    "liberation-serif": "/usr/share/fonts/truetype/liberation2/LiberationSerif-Regular.ttf",
    "cjk": "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
}
LATIN = [
    "The quick brown fox jumps over the lazy dog",
    "Hello World", "Open source software", "WebGPU inference runtime",
    "Invoice number 40213", "Total due: 1,284.50", "Call 555-0199 today",
    "Meeting at 10:30 on 2026-12-01", "Room 204, Building B", "Version 3.14.159",
    "Pack my box with five dozen liquor jugs", "Text recognition works",
    "Sphinx of black quartz, judge my vow", "Order #88317 shipped",
    "Temperature 21.5 C", "Keep calm and carry on", "Battery at 87%",
    "Exit", "Warning: high voltage", "Monday to Friday 9-17",
    "Fresh bread daily", "Platform 9", "Speed limit 50", "Serial AB-7731-QX",
]
DIGITS = ["0123456789", "3.14159265", "2026-12-01", "+49 30 1234567", "42", "100,000", "07:45:00"]
CJK = ["欢迎使用文字识别", "今天天气很好", "北京上海广州深圳", "人工智能与机器学习", "中华人民共和国",
       "开放源代码软件", "春夏秋冬", "价格：128元"]
COLORS = [((255, 255, 255), (0, 0, 0)), ((250, 248, 240), (20, 30, 90)), ((0, 0, 0), (255, 255, 255)),
          ((30, 40, 60), (240, 230, 140)), ((235, 240, 255), (120, 0, 0)), ((20, 20, 20), (200, 255, 200))]


def render(lines, font_name, size, colors, pad):
    font = ImageFont.truetype(FONTS[font_name], size)
    bg, fg = colors
    step = int(size * 1.9)
    widths = [font.getbbox(t)[2] for t in lines]
    w = max(widths) + 2 * pad
    h = step * len(lines) + 2 * pad
    img = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(img)
    out = []
    for i, t in enumerate(lines):
        x, y = pad, pad + i * step + (step - size) // 2
        d.text((x, y), t, font=font, fill=fg)
        b = d.textbbox((x, y), t, font=font)
        out.append({"text": t, "box": [b[0], b[1], b[2], b[3]]})
    return img, out


def main():
    out_dir = sys.argv[1]
    os.makedirs(out_dir, exist_ok=True)
    rng = random.Random(17)
    latin_fonts = ["sans", "sans-bold", "serif", "mono", "liberation-sans", "liberation-serif"]
    manifest = []
    for k in range(24):
        n = 1 + k % 5
        if k % 6 == 5:  # Chinese lines (with a Latin or digit line in some)
            lines = rng.sample(CJK, min(n, 3))
            font = "cjk"
        else:
            pool = LATIN + DIGITS if k % 3 else LATIN
            lines = rng.sample(pool, n)
            font = latin_fonts[k % len(latin_fonts)]
        size = [18, 22, 26, 30, 36, 44][(k * 7) % 6]
        img, info = render(lines, font, size, COLORS[k % len(COLORS)], pad=size)
        name = "img_%02d.png" % k
        img.save(os.path.join(out_dir, name))
        manifest.append({"file": name, "font": font, "size": size, "lines": info})
    with open(os.path.join(out_dir, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, ensure_ascii=False, indent=1)
    print("rendered %d images, %d lines into %s" % (len(manifest), sum(len(m["lines"]) for m in manifest), out_dir))


if __name__ == "__main__":
    main()
