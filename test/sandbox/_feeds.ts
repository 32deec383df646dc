// Catalogue feeds made for the tests of `sandbox catalogue load`: ISBNs with their check digit, and
// ONIX messages of as many products as a test needs (files of several 1 MiB parts for --url).

/** The ISBN-13 of its first 12 digits (the check digit computed). */
export function isbn13(first12: string): string {
  const sum = [...first12].reduce((s, d, i) => s + Number(d) * (i % 2 ? 3 : 1), 0);
  return first12 + ((10 - (sum % 10)) % 10);
}

/** An ONIX message of `n` digital products (about 1 KB each), ISBNs from `from`. */
export function onixXml(n: number, from: number, price = '4.99'): string {
  const products = Array.from({ length: n }, (_, i) => {
    const isbn = isbn13('9791777' + String(from + i).padStart(5, '0'));
    return `<Product><RecordReference>url-${from + i}</RecordReference><NotificationType>03</NotificationType>
<ProductIdentifier><ProductIDType>15</ProductIDType><IDValue>${isbn}</IDValue></ProductIdentifier>
<DescriptiveDetail><ProductForm>ED</ProductForm><TitleDetail><TitleType>01</TitleType><TitleElement><TitleElementLevel>01</TitleElementLevel><TitleText>Remote Harbour ${from + i}</TitleText></TitleElement></TitleDetail>
<Extent><ExtentType>00</ExtentType><ExtentValue>200</ExtentValue><ExtentUnit>03</ExtentUnit></Extent></DescriptiveDetail>
<CollateralDetail><TextContent><TextType>03</TextType><Text>${'A tale of tides and harbours. '.repeat(20)}</Text></TextContent></CollateralDetail>
<PublishingDetail><Publisher><PublishingRole>01</PublishingRole><PublisherName>Remote Press</PublisherName></Publisher></PublishingDetail>
<ProductSupply><SupplyDetail><Price><PriceAmount>${price}</PriceAmount><CurrencyCode>USD</CurrencyCode></Price></SupplyDetail></ProductSupply></Product>`;
  });
  return `<?xml version="1.0" encoding="UTF-8"?>\n<ONIXMessage release="3.0">\n${products.join('\n')}\n</ONIXMessage>\n`;
}
